package storetest

import (
	"os"
	"path/filepath"
	"testing"
)

// StartCluster starts a new, empty PostgreSQL cluster of its own (initdb)
// for one test, with the machine's server binaries, in a temporary
// directory on its own port; it is stopped and removed when the test ends.
// It is a Standby of nothing: Start, Stop, URL and Exec work on it alike,
// URL pointing a URL of ROOST_TEST_POSTGRES at it (its database postgres,
// user postgres, trust authentication). Without the binaries the test is
// skipped, unless CI=true, where it fails.
func StartCluster(t testing.TB) *Standby {
	t.Helper()
	base := PostgresURL(t)
	bin := pgBin()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); bin == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no PostgreSQL server binaries (initdb, pg_ctl) for a second cluster; set ROOST_TEST_PG_BIN")
		}
		t.Skip("no PostgreSQL server binaries for a second cluster (ROOST_TEST_PG_BIN)")
	}
	dir, err := os.MkdirTemp("", "roost-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Standby{Dir: dir, Port: freePort(t), bin: bin, base: base}
	t.Cleanup(func() {
		s.run(t, false, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "immediate", "-w", "stop")
		os.RemoveAll(s.Dir)
	})
	s.chown(t, dir) // PostgreSQL refuses to run as root
	s.run(t, true, "initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")
	s.Start(t)
	return s
}
