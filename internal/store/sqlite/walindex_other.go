//go:build !unix

package sqlite

// shmMap is a log index's mapping; this platform has none (see
// walindex_unix.go), so the counters are read every time.
type shmMap struct{}

func openShm(string) *shmMap                { return nil }
func (*shmMap) grow(int) bool               { return false }
func (*shmMap) read(func([]byte) bool) bool { return false }
func (*shmMap) close()                      {}
