package sqlite

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// Tuning says which of the store's pieces that reach past SQL into
// SQLite's or the driver's internals are used. Each piece changes speed,
// never what the store answers: with all of them off (TuningOff) the store
// runs on plain SQL and the driver's public interfaces alone, and the
// store's tests pass both ways (CI runs them with ROOST_SQLITE_TUNING=off).
type Tuning struct {
	// ShmIndex answers the change counters from the write-ahead log's
	// index, mapped read-only, while no commit wrote their page
	// (walindex.go); off, every read of the counters reads the files.
	ShmIndex bool
	// FTSLevels moves the one segment a bulk load leaves in a full-text
	// index to the level of its size by rewriting FTS5's structure record
	// (fts_levels.go); off, FTS5 keeps it where its 'optimize' put it.
	FTSLevels bool
}

// tuningPiece is one piece's name, as ParseTuning and String spell it,
// and its switch in a Tuning.
type tuningPiece struct {
	name string
	of   func(*Tuning) *bool
}

// tuningPieces are the pieces in the order String lists them.
var tuningPieces = []tuningPiece{
	{"shm", func(t *Tuning) *bool { return &t.ShmIndex }},
	{"ftslevels", func(t *Tuning) *bool { return &t.FTSLevels }},
}

// TuningOn is every piece on: what Open uses and roost's default.
func TuningOn() Tuning {
	var t Tuning
	for _, p := range tuningPieces {
		*p.of(&t) = true
	}
	return t
}

// TuningOff is every piece off: plain SQL and the driver's public
// interfaces.
func TuningOff() Tuning { return Tuning{} }

// TuningNames are the names of the pieces, for ParseTuning's lists.
func TuningNames() []string {
	out := make([]string, len(tuningPieces))
	for i, p := range tuningPieces {
		out[i] = p.name
	}
	return out
}

// ParseTuning reads a --sqlite-tuning value: "on" (or empty) for every
// piece, "off" for none, or the names of the pieces to use separated by
// commas (shm, ftslevels); a name after "on," with a minus drops that
// piece ("on,-shm"). Benchmarks measure one piece with the lists.
func ParseTuning(s string) (Tuning, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "on", "true", "1":
		return TuningOn(), nil
	case "off", "false", "0":
		return TuningOff(), nil
	}
	var t Tuning
	for i, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if i == 0 && name == "on" {
			t = TuningOn()
			continue
		}
		on := !strings.HasPrefix(name, "-")
		name = strings.TrimPrefix(name, "-")
		j := slices.IndexFunc(tuningPieces, func(p tuningPiece) bool { return p.name == name })
		if j < 0 {
			return Tuning{}, fmt.Errorf("sqlite tuning: unknown piece %q (want on, off, or a list of: %s)", name, strings.Join(TuningNames(), ", "))
		}
		*tuningPieces[j].of(&t) = on
	}
	return t, nil
}

// String spells t as ParseTuning reads it: on, off, or the pieces used.
func (t Tuning) String() string {
	switch t {
	case TuningOn():
		return "on"
	case TuningOff():
		return "off"
	}
	var on []string
	for _, p := range tuningPieces {
		if *p.of(&t) {
			on = append(on, p.name)
		}
	}
	return strings.Join(on, ",")
}

// Options configure OpenOptions.
type Options struct {
	// Log receives the store's warnings (nil: discarded).
	Log *slog.Logger
	// Tuning is the pieces used (OpenOptions takes it as it is: the zero
	// value is TuningOff; Open uses TuningOn).
	Tuning Tuning
}

// TuningFromEnv reads ROOST_SQLITE_TUNING through lookup (os.LookupEnv):
// TuningOn when it is unset. Tests open their stores with it, so that CI
// can run them once with every piece off.
func TuningFromEnv(lookup func(string) (string, bool)) (Tuning, error) {
	v, ok := lookup("ROOST_SQLITE_TUNING")
	if !ok {
		return TuningOn(), nil
	}
	return ParseTuning(v)
}

// Tuning reports the pieces the store uses.
func (s *Store) Tuning() Tuning { return s.tuning }

// Path is the database file the store opened.
func (s *Store) Path() string { return s.path }
