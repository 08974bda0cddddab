package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest"
)

// versionsStep reads the counters through the store and through a read
// of the files themselves, fails unless they agree, and reports whether
// the store read the files (true) or answered from the log indexes.
func versionsStep(t *testing.T, s *Store, what string) (social.Versions, bool) {
	t.Helper()
	ctx := context.Background()
	before := s.versions.reads
	v, err := s.Versions(ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := s.Reader.Versions(ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if v != want {
		t.Fatalf("%s: versions %+v, the files hold %+v", what, v, want)
	}
	return v, s.versions.reads != before
}

// TestVersionsFromIndex: the counters are answered from the log indexes
// while no commit wrote a versions page (debits, other writes, a long log
// over several blocks of the index), and read from the files after every
// commit that did: a data write, a key's change, another connection's
// write, a log that started over, a billing file behind a link.
func TestVersionsFromIndex(t *testing.T) {
	ctx := context.Background()
	path, _, s, k := linkedBilling(t)
	t.Cleanup(func() { s.Close() })
	if s.versions.content.shm == nil || s.versions.keys.shm == nil {
		t.Fatal("the log indexes were not mapped")
	}
	v0, _ := versionsStep(t, s, "first read")
	if _, read := versionsStep(t, s, "again"); read {
		t.Fatal("a second read with nothing written read the files")
	}
	for i := range 3 {
		if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 1, RequestID: fmt.Sprint("d", i), Endpoint: "x", Items: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, read := versionsStep(t, s, "after debits"); read {
		t.Fatal("debits (no key change) made the read go to the files")
	}
	if _, err := s.Write(ctx, smallBatch()); err != nil {
		t.Fatal(err)
	}
	v1, read := versionsStep(t, s, "after a write")
	if !read || v1.Content != v0.Content+1 {
		t.Fatalf("after a write: %+v (read the files: %v), want content %d", v1, read, v0.Content+1)
	}
	if _, err := s.TopUp(ctx, k.ID, 5); err != nil {
		t.Fatal(err)
	}
	v2, read := versionsStep(t, s, "after a top-up")
	if !read || v2.Keys != v1.Keys+1 {
		t.Fatalf("after a top-up: %+v (read the files: %v), want keys %d", v2, read, v1.Keys+1)
	}
	// Another process's store on the same files.
	other, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if v, _ := versionsStep(t, s, "after another store's revocation"); v.Keys != v2.Keys+1 {
		t.Fatalf("after another store's revocation: %+v, want keys %d", v, v2.Keys+1)
	}
	// Many frames that do not touch the versions page, past the index's
	// first two blocks, then one that does.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE scratch (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	v3, _ := versionsStep(t, s, "after a new table")
	frames := walIndexFirstPgno + walIndexPerBlock + 500
	if _, err := raw.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO scratch SELECT zeroblob(3000) FROM n`, frames); err != nil {
		t.Fatal(err)
	}
	h, _ := s.versions.content.mark()
	if int(h.mxFrame) < frames {
		t.Fatalf("the log holds %d frames, want over %d", h.mxFrame, frames)
	}
	indexMatchesLog(t, path, h.mxFrame)
	if _, read := versionsStep(t, s, "after a long log"); read {
		t.Fatal("a long log without a versions page made the read go to the files")
	}
	if _, err := other.Write(ctx, smallBatch()); err != nil {
		t.Fatal(err)
	}
	if v, read := versionsStep(t, s, "after a write at the log's end"); !read || v.Content != v3.Content+1 {
		t.Fatalf("after a write past the index's second block: %+v (read the files: %v), want content %d", v, read, v3.Content+1)
	}
	// The log starts over: the next write's frames begin again at 1.
	if _, err := raw.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if _, read := versionsStep(t, s, "after a truncation"); !read {
		t.Fatal("a log that started over was not noticed")
	}
	v4, _ := versionsStep(t, s, "settled")
	if _, err := other.Write(ctx, smallBatch()); err != nil {
		t.Fatal(err)
	}
	if v, _ := versionsStep(t, s, "after a write on a new log"); v.Content != v4.Content+1 {
		t.Fatalf("after a write on a new log: %+v, want content %d", v, v4.Content+1)
	}
}

// indexMatchesLog fails unless the log index of the database at path
// gives each of the first frames of its log the page the log's own frame
// header names (big-endian, at the start of each frame).
func indexMatchesLog(t *testing.T, path string, frames uint32) {
	t.Helper()
	m, err := os.ReadFile(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	const walHdr, frameHdr = 32, 24
	pageSize := int(binary.BigEndian.Uint32(log[8:]))
	for f := uint32(1); f <= frames; f++ {
		at := walHdr + int(f-1)*(frameHdr+pageSize)
		want := binary.BigEndian.Uint32(log[at:])
		if got := binary.NativeEndian.Uint32(m[frameSlot(f):]); got != want {
			t.Fatalf("frame %d: the index says page %d, the log %d", f, got, want)
		}
	}
}

// TestWalHeader: a header whose copies differ, that is not initialized,
// whose checksum is wrong or of another version of the index is not
// taken.
func TestWalHeader(t *testing.T) {
	s := openTuned(t)
	if _, err := s.Write(context.Background(), smallBatch()); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(s.path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	h, ok := readWalHeader(m)
	if !ok || h.mxFrame == 0 {
		t.Fatalf("the store's index header: %+v, %v", h, ok)
	}
	for name, mend := range map[string]func(b []byte){
		"copies differ":   func(b []byte) { b[48+16]++ },
		"not initialized": func(b []byte) { b[12], b[48+12] = 0, 0 },
		"bad checksum": func(b []byte) {
			for _, at := range []int{16, 48 + 16} {
				binary.NativeEndian.PutUint32(b[at:], binary.NativeEndian.Uint32(b[at:])+1)
			}
		},
		"short": func(b []byte) {},
		"another version": func(b []byte) {
			ne := binary.NativeEndian
			ne.PutUint32(b, walIndexVersion+1)
			var s1, s2 uint32
			for i := 0; i < 40; i += 8 {
				s1 += ne.Uint32(b[i:]) + s2
				s2 += ne.Uint32(b[i+4:]) + s1
			}
			ne.PutUint32(b[40:], s1)
			ne.PutUint32(b[44:], s2)
			copy(b[48:96], b[:48])
		},
	} {
		b := append([]byte(nil), m[:walIndexHdrSize]...)
		mend(b)
		if name == "short" {
			b = b[:100]
		}
		if _, ok := readWalHeader(b); ok {
			t.Errorf("%s: header taken", name)
		}
	}
	if got := frameSlot(1); got != walIndexHdrSize {
		t.Errorf("frame 1's slot at %d", got)
	}
	if got := frameSlot(walIndexFirstPgno + 1); got != walIndexBlock {
		t.Errorf("the first frame of block 1 at %d", got)
	}
	if got := frameSlot(walIndexFirstPgno + walIndexPerBlock + 2); got != 2*walIndexBlock+4 {
		t.Errorf("the second frame of block 2 at %d", got)
	}
}

// TestVersionsFromIndexUnderWrites: reads racing writes of data and debits
// never see a counter go back, and the last read after the writes sees the
// last write.
func TestVersionsFromIndexUnderWrites(t *testing.T) {
	ctx := context.Background()
	s := openTuned(t)
	k, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: [32]byte{2}}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for i := range 60 {
			if _, err := s.Write(ctx, smallBatch()); err != nil {
				done <- err
				return
			}
			if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 1, RequestID: fmt.Sprint("r", i), Endpoint: "x", Items: 1}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	var last social.Versions
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		v, err := s.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Content < last.Content || v.Keys < last.Keys {
			t.Fatalf("versions went back: %+v after %+v", v, last)
		}
		last = v
	}
	versionsStep(t, s, "after the writes")
}

// TestVersionsOnManyPages: a versions table grown past one page is not
// watched (a commit could write another of its pages): the counters are
// then read every time, and right.
func TestVersionsOnManyPages(t *testing.T) {
	ctx := context.Background()
	s := openTuned(t)
	if _, err := s.bill.ExecContext(ctx, `INSERT INTO versions (name, n)
		WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 400)
		SELECT printf('padding %d %.80c', x, 'x'), 0 FROM i`); err != nil {
		t.Fatal(err)
	}
	versionsStep(t, s, "first read")
	for i := range 3 {
		if _, read := versionsStep(t, s, fmt.Sprint("read ", i)); !read {
			t.Fatal("a versions table on several pages was watched")
		}
	}
	if _, err := s.TopUp(ctx, storetest.NewKey(t, s, "k", 100), 1); err != nil {
		t.Fatal(err)
	}
	versionsStep(t, s, "after a top-up")
}
