package main

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/store/sqlite"
)

// TestSQLiteTuningSetting: a SQLite store is opened with --sqlite-tuning
// when given, else ROOST_SQLITE_TUNING, else every piece; a bad value is
// a usage error.
func TestSQLiteTuningSetting(t *testing.T) {
	on, off, noShm := sqlite.TuningOn(), sqlite.TuningOff(), sqlite.Tuning{FTSLevels: true}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want *sqlite.Tuning
	}{
		{"default", nil, nil, &on},
		{"env", nil, map[string]string{"ROOST_SQLITE_TUNING": "off"}, &off},
		{"flag over env", []string{"--sqlite-tuning", "on,-shm"}, map[string]string{"ROOST_SQLITE_TUNING": "off"}, &noShm},
		{"bad env", nil, map[string]string{"ROOST_SQLITE_TUNING": "fast"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &env{stdout: io.Discard, stderr: io.Discard, lookupEnv: func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }}
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			tuningFlag(fs, e)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			s, err := openStore(context.Background(), e, filepath.Join(t.TempDir(), "t.db"))
			if c.want == nil {
				if _, ok := err.(*usageErr); !ok {
					t.Fatalf("want a usage error, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.(*sqlite.Store).Tuning(); got != *c.want {
				t.Errorf("tuning %v, want %v", got, *c.want)
			}
		})
	}
}
