package migration

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_more.sql": {Data: []byte("two")},
		"m/0001_init.sql": {Data: []byte("one")},
		"m/README.md":     {Data: []byte("not a step")},
	}
	steps, err := Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Version != 1 || steps[1].Name != "0002_more.sql" || steps[1].SQL != "two" {
		t.Fatalf("steps %+v", steps)
	}
	for name, bad := range map[string]fstest.MapFS{
		"unnumbered": {"m/init.sql": {}},
		"zero":       {"m/0000_x.sql": {}},
		"duplicate":  {"m/0001_a.sql": {}, "m/001_b.sql": {}},
	} {
		if _, err := Load(bad, "m"); err == nil || !strings.Contains(err.Error(), "migration") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
