//go:build unix

package sqlite

import (
	"os"
	"syscall"
)

// shmMap is a read-only mapping of a database's log index (its "-shm"
// file), grown as the index grows.
type shmMap struct {
	f *os.File
	m []byte
}

// openShm maps the log index of the database at path (the file SQLite
// uses: beside the file the path's links lead to, linkTarget). It returns
// nil when there is none to map (not in WAL mode, or a platform without
// mappings): the caller then reads the counters every time.
func openShm(path string) *shmMap {
	f, err := os.Open(linkTarget(path) + "-shm")
	if err != nil {
		return nil
	}
	s := &shmMap{f: f}
	if !s.grow(walIndexHdrSize) {
		f.Close()
		return nil
	}
	return s
}

// grow maps the whole index again when the mapping is shorter than need
// bytes, and reports whether it now holds them.
func (s *shmMap) grow(need int) bool {
	if need <= len(s.m) {
		return true
	}
	fi, err := s.f.Stat()
	if err != nil || fi.Size() < int64(need) {
		return false
	}
	m, err := syscall.Mmap(int(s.f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	if s.m != nil {
		syscall.Munmap(s.m) //nolint:errcheck // a mapping of ours, read only
	}
	s.m = m
	return true
}

// read runs fn over the mapping (false on a fault: see readIndex).
func (s *shmMap) read(fn func([]byte) bool) bool { return readIndex(s.m, fn) }

// close unmaps the index.
func (s *shmMap) close() {
	if s == nil {
		return
	}
	if s.m != nil {
		syscall.Munmap(s.m) //nolint:errcheck // a mapping of ours, read only
		s.m = nil
	}
	s.f.Close()
}
