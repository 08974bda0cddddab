package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/roostapi/roost/internal/dev/perf"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// benchPair is roost bench --http --against-tuning: roost with the tuning of
// --sqlite-tuning (a) against roost with another (b), each on its own
// copy of the database src (two backups of it, in a directory beside it
// removed at the end), or on the files of aPath and bPath when given.
// Both are served in this process and driven in turn as the ceiling
// comparison drives roost and the ceiling; the ratio is a's requests/s
// over b's.
func benchPair(ctx context.Context, e *env, src *sqlite.Store, a, b sqlite.Tuning, bPath string, cfg perf.HTTPConfig, rig perf.RigConfig) (err error) {
	aPath := ""
	if bPath == "" {
		dir, err := os.MkdirTemp(filepath.Dir(src.Path()), "bench-pair-")
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(dir)
		aPath, bPath = filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
		for _, p := range []string{aPath, bPath} {
			if err := src.Backup(ctx, p); err != nil {
				return err
			}
		}
	}
	stores := make([]*sqlite.Store, 2)
	rigs := make([]*perf.Rig, 2)
	defer func() {
		for i := range stores {
			if rigs[i] != nil {
				err = errors.Join(err, rigs[i].Close(context.WithoutCancel(ctx)))
			}
			if stores[i] != nil {
				stores[i].Close()
			}
		}
	}()
	for i, side := range []struct {
		path string
		t    sqlite.Tuning
	}{{aPath, a}, {bPath, b}} {
		st := src
		if side.path != "" {
			if st, err = sqlite.OpenOptions(ctx, side.path, sqlite.Options{Log: e.log, Tuning: side.t}); err != nil {
				return err
			}
			stores[i] = st
		}
		if rigs[i], err = perf.NewRigConfig(ctx, st, rig); err != nil {
			return err
		}
	}
	names := [2]string{"tuning " + a.String(), "tuning " + b.String()}
	fmt.Fprintf(e.stdout, "A: roost with --sqlite-tuning %s on %s; B: with %s on %s\n", a, orSource(aPath, src), b, bPath)
	cs, err := rigs[0].ComparePair(ctx, cfg, rigs[1], names, e.stderr)
	if err != nil {
		return err
	}
	perf.ReportPair(e.stdout, names, cs)
	for i, p := range []string{orSource(aPath, src), bPath} {
		fmt.Fprintf(e.stdout, "%s: write-ahead logs after the runs: database %s, billing file %s\n", names[i],
			walSize(p), walSize(sqlite.BillingPath(p)))
	}
	return nil
}

// walSize is the size of the write-ahead log of the database at path, in
// MiB ("none" when there is none).
func walSize(path string) string {
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		return "none"
	}
	return fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
}

// orSource is path, or the source store's when empty.
func orSource(path string, src *sqlite.Store) string {
	if path == "" {
		return src.Path()
	}
	return path
}
