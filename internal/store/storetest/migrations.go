package storetest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// MigrationsLoggedOnce opens a new database twice with open, logging to a
// buffer: the first open must log the steps it applied in one info line
// (count steps, last the name of the last), never a line a step; the
// second, up to date, no migration line at all.
func MigrationsLoggedOnce(t *testing.T, open func(*slog.Logger) (io.Closer, error), steps int, last string) {
	t.Helper()
	for round, want := range []int{steps, 0} {
		var buf bytes.Buffer
		s, err := open(slog.New(slog.NewJSONHandler(&buf, nil)))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) == nil && strings.Contains(rec["msg"].(string), "migration") {
				lines = append(lines, rec)
			}
		}
		switch {
		case want == 0 && len(lines) != 0:
			t.Errorf("open %d: %v, want no migration line", round, lines)
		case want > 0 && (len(lines) != 1 || lines[0]["level"] != "INFO" || lines[0]["count"] != float64(want) ||
			lines[0]["last"] != last):
			t.Errorf("open %d: %v, want one info line of %d steps, the last %s", round, lines, want, last)
		}
	}
}
