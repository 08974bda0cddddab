package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func TestFTSLevelOf(t *testing.T) {
	for _, c := range []struct {
		leaves uint64
		level  int
	}{{1, 1}, {4, 1}, {5, 2}, {16, 2}, {17, 3}, {64, 3}, {65, 4}, {124623, 9}, {1 << 20, 10}, {1<<20 + 1, 11}} {
		if got := ftsLevelOf(c.leaves); got != c.level {
			t.Errorf("ftsLevelOf(%d) = %d, want %d", c.leaves, got, c.level)
		}
	}
}

func TestVarints(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<56 - 1, 1 << 56, 1<<64 - 1} {
		b := appendVarint(nil, v)
		r := varintReader{b: b}
		if got := r.next(); got != v || r.bad || len(r.b) != 0 {
			t.Errorf("%d: encoded % x, read %d (bad %v, %d bytes left)", v, b, got, r.bad, len(r.b))
		}
	}
	r := varintReader{b: []byte{0x81}}
	if r.next(); !r.bad {
		t.Error("a cut varint read as whole")
	}
}

// structure reads the structure record of a full-text index.
func structure(t *testing.T, s *Store, table string) *ftsStructure {
	t.Helper()
	var rec []byte
	if err := s.write.QueryRow(`SELECT block FROM `+table+`_data WHERE id = ?`, ftsStructureID).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	st, err := parseStructure(rec)
	if err != nil {
		t.Fatalf("%s: %v (% x)", table, err, rec)
	}
	if enc := st.encode(); !slices.Equal(enc, rec) {
		t.Fatalf("%s: record % x encoded again as % x", table, rec, enc)
	}
	return st
}

// segmentIDs lists the ids of an index's segments and the level of each.
func segmentIDs(st *ftsStructure) map[uint64]int {
	out := map[uint64]int{}
	for l, lv := range st.levels {
		for _, seg := range lv.segments {
			out[seg[0]] = l
		}
	}
	return out
}

// merging reports whether segment id is an input of a merge under way:
// one of the first `merging` segments of its level.
func merging(st *ftsStructure, id uint64) bool {
	for _, lv := range st.levels {
		for i, seg := range lv.segments {
			if seg[0] == id {
				return uint64(i) < lv.merging
			}
		}
	}
	return false
}

// TestBulkLiftsFTS: a bulk load leaves each full-text index as one
// segment on the level of its size, and the small writes that follow
// merge among themselves without merging it again; the index stays
// whole (FTS5's integrity-check) and finds old and new posts.
func TestBulkLiftsFTS(t *testing.T) {
	ctx := context.Background()
	s := openTuned(t)
	err := s.Bulk(ctx, 20000, func(w social.Writer) error {
		for i := range 20 {
			if _, err := w.Write(ctx, postsBatch(int64(1000+1000*i), 1000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// posts_fts only: these posts have no links for post_urls, which
	// takes the same path.
	loaded := map[string][2]uint64{} // segment id and level of each index's load
	for _, table := range []string{"posts_fts"} {
		st := structure(t, s, table)
		ids := segmentIDs(st)
		if len(ids) != 1 {
			t.Fatalf("%s: %d segments after the load, want 1", table, len(ids))
		}
		for id, level := range ids {
			seg := st.levels[level].segments[0]
			if want := ftsLevelOf(seg[2] - seg[1] + 1); level != want || level < 3 {
				t.Errorf("%s: the load's segment (%d leaves) on level %d, want %d (at least 3)", table, seg[2]-seg[1]+1, level, want)
			}
			loaded[table] = [2]uint64{id, uint64(level)}
		}
	}
	// Small writes, a transaction each, as a living world makes them:
	// with the loaded segment on level 1 these writes merged it again.
	for i := range 500 {
		if _, err := s.Write(ctx, postsBatch(int64(100000+i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range []string{"posts_fts"} {
		st := structure(t, s, table)
		ids := segmentIDs(st)
		id, level := loaded[table][0], int(loaded[table][1])
		if at, ok := ids[id]; !ok || at != level || merging(st, id) {
			t.Errorf("%s: the load's segment was merged again by small writes (segments now %v, merges %v)", table, ids, st.levels)
		}
		if len(ids) < 2 {
			t.Errorf("%s: %d segments after 500 writes", table, len(ids))
		}
		if _, err := s.write.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
	for q, want := range map[string]int{"common": 20500, "w1500": 1, "w100499": 1} {
		if n := countRows(t, s, `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ?`, q); n != want {
			t.Errorf("full-text finds %d posts for %s, want %d", n, q, want)
		}
	}
}

// TestLiftLeavesOthers: a record of several segments, one being merged or
// of another format is left as it is; a segment on its level already
// needs no change.
func TestLiftLeavesOthers(t *testing.T) {
	seg := [ftsSegmentFields]uint64{7, 1, 100, 0, 0, 0, 0, 0}
	rec := func(levels ...ftsLevel) []byte {
		n := 0
		for _, l := range levels {
			n += len(l.segments)
		}
		return (&ftsStructure{cookie: 3, segments: uint64(n), levels: levels}).encode()
	}
	one := []ftsLevel{{}, {segments: [][ftsSegmentFields]uint64{seg}}}
	if lifted, level, err := liftStructure(rec(one...)); err != nil || level != 4 || lifted == nil {
		t.Fatalf("one segment of 100 leaves on level 1: level %d, %v", level, err)
	} else if st, _ := parseStructure(lifted); st.cookie != 4 || len(st.levels) != 5 || len(st.levels[4].segments) != 1 {
		t.Errorf("lifted: %+v", st)
	}
	if lifted, level, err := liftStructure(rec(ftsLevel{}, ftsLevel{}, ftsLevel{}, ftsLevel{}, ftsLevel{}, ftsLevel{segments: one[1].segments})); err != nil || lifted != nil || level != 5 {
		t.Errorf("a segment above its level: moved (%v) to %d, %v", lifted != nil, level, err)
	}
	for name, r := range map[string][]byte{
		"two segments": rec(ftsLevel{segments: [][ftsSegmentFields]uint64{seg}}, ftsLevel{segments: [][ftsSegmentFields]uint64{seg}}),
		"merging":      rec(ftsLevel{merging: 1, segments: [][ftsSegmentFields]uint64{seg}}),
		"version 1":    append([]byte{0, 0, 0, 1}, 1, 1, 0, 0, 1, 7, 1, 100),
		"cut":          rec(one...)[:12],
		"empty":        rec(),
	} {
		if lifted, _, err := liftStructure(r); err == nil || lifted != nil {
			t.Errorf("%s: lifted %v, %v", name, lifted != nil, err)
		}
	}
}

// TestOpenLiftsLoadedIndex: a database whose full-text index a load left
// as one segment on level 1 (a release before the move) gets the move
// when opened.
func TestOpenLiftsLoadedIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Bulk(ctx, 5000, func(w social.Writer) error {
		_, err := w.Write(ctx, postsBatch(1000, 5000))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st := structure(t, s, "posts_fts")
	ids := segmentIDs(st)
	if len(ids) != 1 {
		t.Fatalf("%d segments after the load", len(ids))
	}
	var seg [ftsSegmentFields]uint64
	for _, lv := range st.levels {
		if len(lv.segments) == 1 {
			seg = lv.segments[0]
		}
	}
	want := ftsLevelOf(seg[2] - seg[1] + 1)
	if want < 2 {
		t.Fatalf("%d leaves: too few to move", seg[2]-seg[1]+1)
	}
	old := &ftsStructure{cookie: st.cookie + 1, segments: 1, writes: st.writes,
		levels: []ftsLevel{{}, {segments: [][ftsSegmentFields]uint64{seg}}}}
	if _, err := s.write.ExecContext(ctx, `UPDATE posts_fts_data SET block = ? WHERE id = ?`, old.encode(), ftsStructureID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := segmentIDs(structure(t, s, "posts_fts")); got[seg[0]] != want {
		t.Errorf("after Open the segment is on level %d, want %d", got[seg[0]], want)
	}
	if n := countRows(t, s, `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'common'`); n != 5000 {
		t.Errorf("full-text finds %d posts, want 5000", n)
	}
}
