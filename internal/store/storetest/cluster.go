package storetest

import (
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
	s := newServer(t, "initdb", "a second cluster")
	s.run(t, true, "initdb", "-D", filepath.Join(s.Dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")
	s.Start(t)
	return s
}
