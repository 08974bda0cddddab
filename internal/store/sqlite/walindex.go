package sqlite

// Tuning piece "shm" (Tuning.ShmIndex; off: --sqlite-tuning=off or
// on,-shm, and the counters are read from the files on every read).
//
// Invariant relied on: the layout of the write-ahead log's index in the
// "-shm" file, SQLite's documented WAL-index format (below): a header of
// version 3007000 in two copies with their checksum, the frame count and
// the salts at fixed offsets, and a page number for each frame, written
// before the header that counts it. A header of another version, two
// copies that differ or a wrong checksum make the reader say "changed",
// and the counters are read from the files.
// Checked against: SQLite 3.54.1 (modernc.org/sqlite v1.61.1,
// modernc.org/libc v1.79.0), linux/amd64, 2026-11-29.
// Proved by: TestVersionsFromIndex, TestVersionsFromIndexUnderWrites,
// TestVersionsOnManyPages and TestWalHeader (walindex_test.go), and
// TestTuningOff (the piece off).
// Justified by: roost bench --http --db DB --sqlite-tuning on --against-tuning
// on,-shm --kinds timeline,profile --duration 3s --rounds 4 (30k posts,
// 2026-11-29, a machine shared with other work, load 8-18 on 2 cores),
// four runs: requests/s on/off timeline 1.09, 1.65, 0.93, 1.63, profile
// 1.40, 1.53, 1.38, 1.01; processor time a page 0.62-0.83 of the piece
// off's in seven runs of eight (1.17 in one). The same tuning on both
// sides (--against-tuning on) gave 0.68-1.12 and 0.97-1.36: the requests/s of
// one run overlap that noise, the processor time a page does not.

import (
	"encoding/binary"
	"runtime/debug"
	"sync/atomic"
	"unsafe"
)

// The write-ahead log's index (the "-shm" file beside the database, which
// every connection of every process maps and SQLite's file-format
// documentation describes: https://sqlite.org/walformat.html) tells,
// without a read transaction, which pages the log's commits wrote. A
// pageWatch uses it to tell whether one page (the versions table's only
// page) may have changed since it last looked: the change counters are
// read for nearly every paid request, and a read transaction on two files
// (file locks, a look at each log) costs more than the rest of a cached
// page.
//
// Layout (native byte order): two copies of a 48-byte header at 0 and 48
// (a writer writes the second, then the first; a reader that finds them
// equal and their checksum right has a whole one), the checkpoint's
// information to 136, then for each frame of the log, from frame 1, the
// number of the page it holds: 4,062 of them in the first 32 KiB block
// after the 136 bytes, 4,096 at the start of each later block.
const (
	walIndexVersion   = 3007000 // the header's iVersion (WALINDEX_MAX_VERSION)
	walIndexBlock     = 32768
	walIndexHdrSize   = 136
	walIndexFirstPgno = (4096*4 - walIndexHdrSize) / 4 // 4,062 frames in block 0
	walIndexPerBlock  = 4096
)

// walHeader is what a pageWatch reads of the index's header: the frames
// committed to the log and the log's salts, which change when it starts
// over.
type walHeader struct {
	mxFrame uint32
	salt    [2]uint32
}

// readWalHeader reads the index's header from m, reporting false when the
// two copies differ, the header is not initialized or its checksum is
// wrong (a writer is changing it, or the file is not a log's index).
func readWalHeader(m []byte) (walHeader, bool) {
	if len(m) < walIndexHdrSize {
		return walHeader{}, false
	}
	// The first copy's frame count is loaded atomically, and first: on
	// processors that reorder loads, what is read after it (the copies,
	// the page numbers of the frames it counts) is then no older than it,
	// as SQLite writes a frame's page number before the header that counts
	// it, with a barrier between.
	mx := atomic.LoadUint32((*uint32)(unsafe.Pointer(&m[16])))
	var h1, h2 [48]byte
	copy(h1[:], m[:48])
	copy(h2[:], m[48:96])
	if h1 != h2 || h1[12] == 0 { // isInit
		return walHeader{}, false
	}
	// An index of another version has another layout: the counters are
	// then read every time.
	if binary.NativeEndian.Uint32(h1[0:]) != walIndexVersion {
		return walHeader{}, false
	}
	// The header's checksum is always of native words (the log's frames
	// have their own byte order; not this).
	ne := binary.NativeEndian
	var s1, s2 uint32
	for i := 0; i < 40; i += 8 {
		s1 += ne.Uint32(h1[i:]) + s2
		s2 += ne.Uint32(h1[i+4:]) + s1
	}
	if s1 != ne.Uint32(h1[40:]) || s2 != ne.Uint32(h1[44:]) || ne.Uint32(h1[16:]) != mx {
		return walHeader{}, false
	}
	return walHeader{mxFrame: ne.Uint32(h1[16:]), salt: [2]uint32{ne.Uint32(h1[32:]), ne.Uint32(h1[36:])}}, true
}

// frameSlot is the offset in the index of the page number of frame (from
// 1).
func frameSlot(frame uint32) int {
	if frame <= walIndexFirstPgno {
		return walIndexHdrSize + int(frame-1)*4
	}
	i := int(frame-1) - walIndexFirstPgno
	return (1+i/walIndexPerBlock)*walIndexBlock + (i%walIndexPerBlock)*4
}

// pageWatch follows one page of one database through its log's index.
type pageWatch struct {
	shm  *shmMap // nil: the index could not be mapped; every look says changed
	page uint32  // the page watched (0: none yet)
	at   walHeader
	ok   bool // at and page hold what the last full read saw
}

// mark reads the header before a full read of the page's content, which
// then reflects at least every commit the header counts.
func (w *pageWatch) mark() (walHeader, bool) {
	if w.shm == nil {
		return walHeader{}, false
	}
	var h walHeader
	ok := w.shm.read(func(m []byte) bool {
		var good bool
		h, good = readWalHeader(m)
		return good
	})
	return h, ok
}

// settle records what a full read saw: the page watched and the header
// marked before it (ok false: nothing known; the next look says changed).
func (w *pageWatch) settle(h walHeader, page uint32, ok bool) {
	w.at, w.page, w.ok = h, page, ok && page > 0
}

// unchanged reports whether no commit since the last settle (or since the
// last look that said so) wrote the page: the log has not started over and
// none of the frames committed since holds it.
func (w *pageWatch) unchanged() bool {
	if !w.ok || w.shm == nil {
		return false
	}
	now, ok := w.mark()
	same := ok && now.salt == w.at.salt && now.mxFrame >= w.at.mxFrame &&
		(now.mxFrame == w.at.mxFrame || w.shm.grow(frameSlot(now.mxFrame)+4) && w.shm.read(func(m []byte) bool {
			ne := binary.NativeEndian
			for f := w.at.mxFrame + 1; f <= now.mxFrame; f++ {
				if ne.Uint32(m[frameSlot(f):]) == w.page {
					return false
				}
			}
			return true
		}))
	if !same {
		w.ok = false
		return false
	}
	w.at = now
	return true
}

// readIndex runs fn over m, turning a fault of the mapping (the file cut
// short under it) into false.
func readIndex(m []byte, fn func([]byte) bool) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return fn(m)
}
