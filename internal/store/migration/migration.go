// Package migration reads the numbered schema steps a store embeds
// (files named NNNN_name.sql) in order. Each engine applies them its own
// way, under its own lock.
package migration

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Step is one numbered schema step.
type Step struct {
	Version int
	Name    string // the file name, e.g. "0001_init.sql"
	SQL     string
}

// Load reads every dir/*.sql of fsys as a step, ordered by version. A file
// not named NNNN_name.sql, or two files with one version, is an error.
func Load(fsys fs.FS, dir string) ([]Step, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	out := make([]Step, 0, len(names))
	seen := map[int]string{}
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q is not named NNNN_name.sql", base)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %q and %q have the same version %d", other, base, v)
		}
		seen[v] = base
		body, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", base, err)
		}
		out = append(out, Step{Version: v, Name: base, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Pending reports the steps of want whose versions are not among applied
// (the versions a database records), by name.
func Pending(want []Step, applied []int) []string {
	have := make(map[int]bool, len(applied))
	for _, v := range applied {
		have[v] = true
	}
	var out []string
	for _, s := range want {
		if !have[s.Version] {
			out = append(out, s.Name)
		}
	}
	return out
}
