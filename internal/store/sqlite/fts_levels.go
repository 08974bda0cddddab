package sqlite

// Tuning piece "ftslevels" (Tuning.FTSLevels; off: --sqlite-tuning=off or
// on,-ftslevels, and the loaded segment stays where FTS5 put it).
//
// Invariant relied on: FTS5's structure record (its %_data row 10), a
// private format that FTS5 reads from every version on (below): the
// cookie, the version-2 marker, the levels and their segments as varints.
// Only a record of that version holding exactly one segment, no merge
// under way, is rewritten, in a transaction that reads it again; any
// other shape is left alone.
// Checked against: SQLite 3.54.1 (FTS5 of that release; modernc.org/sqlite
// v1.61.1), 2026-11-29.
// Proved by: TestBulkLiftsFTS (FTS5's integrity-check after the move and
// after small writes), TestLiftLeavesOthers, TestOpenLiftsLoadedIndex
// (fts_levels_test.go), and TestTuningOff (the piece off).
// Justified by: a database of 200k posts loaded with the piece off
// (roost gen --sqlite-tuning off), copied twice; each copy took 40,000
// living-world events (roost live --events 40000) with the piece on and
// off (14 segments against 58 after them); then roost bench --http --db A
// --sqlite-tuning on --against-tuning on,-ftslevels --against-db B --kinds
// "search Latest" --page-cache 0 --duration 3s --rounds 4, 2026-11-29,
// four runs on a shared machine (load 9-16 on 2 cores): requests/s on/off
// 1.29, 1.21, 1.13, 1.31; processor time a page 0.70-0.80 of the piece
// off's (the same tuning on both sides: 0.97-1.36).

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// A full-text index (FTS5) is a list of segments in levels. Each write
// adds a small segment to level 0, and FTS5's automerge merges the oldest
// `automerge` (4) segments of a level into one on the next level, as
// soon as a level holds that many; a query reads every segment. A bulk
// load ends with one merge of everything ('optimize'), which FTS5 puts on
// the level above the highest one in use: level 1 after a load, where the
// first merges of the small writes that follow land. So the fourth of
// them merged the whole loaded index again, one work unit after another,
// while the small segments piled up behind that merge (a living world on
// 1M posts: 444 segments after 40,000 events, the whole index rewritten
// every 40,000–80,000 events, search `Latest` p50 1.24 ms against 0.24 on
// the fresh file). liftFTS moves the one segment a load leaves to the
// level its size would have reached by merges of four (log4 of its
// leaves), so that it is merged again only when that level has filled
// with as much new text as four times its size, as an index grown by
// small writes alone would be.
//
// The levels live in the index's structure record (FTS5's %_data row 10),
// whose format FTS5 reads from every version on: a 4-byte cookie, the
// version-2 marker, then varints: levels, segments, the write counter,
// and per level the segments being merged, the segments, and for each its
// id, first and last page and five counters of version 2.

// ftsStructureID is the rowid of an FTS5 index's structure record.
const ftsStructureID = 10

// ftsStructureV2 marks a structure record of FTS5's second format.
const ftsStructureV2 = "\xff\x00\x00\x01"

// ftsSegmentFields is how many varints describe a segment in that format.
const ftsSegmentFields = 8

// errFTSShape: a structure record is not one lifting applies to.
var errFTSShape = errors.New("not a single-segment version-2 structure")

// ftsLevelOf is the level a segment of leaves would reach by merges of
// four: the ceiling of log4(leaves), at least 1.
func ftsLevelOf(leaves uint64) int {
	if leaves <= 4 {
		return 1
	}
	return (bits.Len64(leaves-1) + 1) / 2
}

// liftFTS moves the single segment of full-text index table to the level
// of its size (ftsLevelOf) and reports whether it did, and the level the
// segment is on. An index of several segments, or of a format other than
// the one described above, is left as it is (level 0). The record is read
// on the write connection; a move is made on a connection of its own: the
// write connection's FTS5 keeps the structure it read, and reads it again
// once another connection has committed.
func (s *Store) liftFTS(ctx context.Context, table string) (int, bool, error) {
	lifted, level, err := readLift(ctx, s.write, table)
	if err != nil || lifted == nil {
		return level, false, err
	}
	db, err := openOne(dsn(s.path, false))
	if err != nil {
		return 0, false, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: %s structure: %w", table, err)
	}
	defer tx.Rollback()
	// Read again in the transaction that writes: a write in between
	// changed the record.
	if lifted, level, err = readLift(ctx, tx, table); err != nil || lifted == nil {
		return level, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+quoteIdent(table+"_data")+` SET block = ? WHERE id = ?`, lifted, ftsStructureID); err != nil {
		return 0, false, fmt.Errorf("sqlite: %s structure: %w", table, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("sqlite: %s structure: %w", table, err)
	}
	return level, true, nil
}

// readLift reads the structure record of table and returns it lifted
// (liftStructure), nil when it is not to be moved.
func readLift(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) ([]byte, int, error) {
	var rec []byte
	err := q.QueryRowContext(ctx, `SELECT block FROM `+quoteIdent(table+"_data")+` WHERE id = ?`, ftsStructureID).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: %s structure: %w", table, err)
	}
	lifted, level, err := liftStructure(rec)
	if errors.Is(err, errFTSShape) {
		return nil, 0, nil
	}
	return lifted, level, err
}

// liftIndexes lifts every full-text index that is one segment (after a
// load; a database loaded by a release before the move gets it when
// first opened), and logs each move; nothing without Tuning.FTSLevels.
func (s *Store) liftIndexes(ctx context.Context) error {
	if !s.tuning.FTSLevels {
		return nil
	}
	for _, t := range ftsIndexes() {
		level, moved, err := s.liftFTS(ctx, t.table)
		if err != nil {
			return err
		}
		if moved {
			s.log.Info("sqlite: full-text index moved to the level of its size", "db", s.path, "index", t.table, "level", level)
		}
	}
	return nil
}

// liftStructure returns structure record rec with its one segment on the
// level of its size, and that level; nil when the segment is there
// already. errFTSShape when rec holds several segments, a merge under
// way, or another format.
func liftStructure(rec []byte) ([]byte, int, error) {
	s, err := parseStructure(rec)
	if err != nil {
		return nil, 0, err
	}
	at, found := -1, 0
	for l, lv := range s.levels {
		if lv.merging > 0 {
			return nil, 0, errFTSShape
		}
		if len(lv.segments) > 0 {
			at, found = l, found+len(lv.segments)
		}
	}
	if found != 1 {
		return nil, 0, errFTSShape
	}
	seg := s.levels[at].segments[0]
	level := max(at, ftsLevelOf(seg[2]-seg[1]+1))
	if level == at {
		return nil, at, nil
	}
	s.levels = make([]ftsLevel, level+1)
	s.levels[level].segments = [][ftsSegmentFields]uint64{seg}
	s.cookie++
	return s.encode(), level, nil
}

// ftsStructure is a parsed structure record.
type ftsStructure struct {
	cookie   uint32
	segments uint64 // in all levels
	writes   uint64
	levels   []ftsLevel
}

type ftsLevel struct {
	merging  uint64 // segments of the level being merged
	segments [][ftsSegmentFields]uint64
}

func parseStructure(rec []byte) (*ftsStructure, error) {
	if len(rec) < 8 || string(rec[4:8]) != ftsStructureV2 {
		return nil, errFTSShape
	}
	s := &ftsStructure{cookie: binary.BigEndian.Uint32(rec)}
	r := varintReader{b: rec[8:]}
	nLevels := r.next()
	s.segments, s.writes = r.next(), r.next()
	if r.bad || nLevels > 64 {
		return nil, errFTSShape
	}
	s.levels = make([]ftsLevel, nLevels)
	for l := range s.levels {
		s.levels[l].merging = r.next()
		n := r.next()
		if r.bad || n > s.segments {
			return nil, errFTSShape
		}
		for range n {
			var seg [ftsSegmentFields]uint64
			for i := range seg {
				seg[i] = r.next()
			}
			s.levels[l].segments = append(s.levels[l].segments, seg)
		}
	}
	if r.bad || len(r.b) != 0 {
		return nil, errFTSShape
	}
	return s, nil
}

func (s *ftsStructure) encode() []byte {
	out := binary.BigEndian.AppendUint32(nil, s.cookie)
	out = append(out, ftsStructureV2...)
	out = appendVarint(out, uint64(len(s.levels)))
	out = appendVarint(out, s.segments)
	out = appendVarint(out, s.writes)
	for _, lv := range s.levels {
		out = appendVarint(out, lv.merging)
		out = appendVarint(out, uint64(len(lv.segments)))
		for _, seg := range lv.segments {
			for _, v := range seg {
				out = appendVarint(out, v)
			}
		}
	}
	return out
}

// varintReader reads SQLite's varints: big-endian groups of seven bits,
// the high bit set on all but the last, the ninth byte whole.
type varintReader struct {
	b   []byte
	bad bool
}

func (r *varintReader) next() uint64 {
	var v uint64
	for i := range 9 {
		if i >= len(r.b) {
			r.bad = true
			return 0
		}
		c := r.b[i]
		if i == 8 {
			r.b = r.b[9:]
			return v<<8 | uint64(c)
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			r.b = r.b[i+1:]
			return v
		}
	}
	return v
}

// appendVarint appends v as SQLite's varint.
func appendVarint(out []byte, v uint64) []byte {
	if v>>56 != 0 {
		var b [9]byte
		b[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			b[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(out, b[:]...)
	}
	var b [8]byte
	n := len(b)
	for {
		n--
		b[n] = byte(v&0x7f) | 0x80
		v >>= 7
		if v == 0 {
			break
		}
	}
	b[len(b)-1] &= 0x7f
	return append(out, b[n:]...)
}
