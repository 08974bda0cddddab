package storetest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Standby is a hot standby of the cluster behind ROOST_TEST_POSTGRES,
// made for one test with the machine's PostgreSQL server binaries
// (pg_basebackup, pg_ctl) in a temporary directory, on its own port. The
// primary must accept replication connections from 127.0.0.1 (pg_hba.conf:
// `host replication all 127.0.0.1/32 trust`; .ci/run adds it).
type Standby struct {
	Dir  string
	Port int
	bin  string
	base string // the primary's test URL
}

// pgBin is the directory of the server binaries: ROOST_TEST_PG_BIN, or
// the newest /usr/lib/postgresql/*/bin.
func pgBin() string {
	if d := os.Getenv("ROOST_TEST_PG_BIN"); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	if len(dirs) == 0 {
		return ""
	}
	return dirs[len(dirs)-1]
}

// StartStandby starts a standby of the test database's cluster, stopped
// and removed when the test ends. Without the binaries the test is
// skipped, unless CI=true, where it fails.
func StartStandby(t testing.TB) *Standby {
	t.Helper()
	s := newServer(t, "pg_basebackup", "a standby")
	data := filepath.Join(s.Dir, "data")
	pu, _ := url.Parse(s.base)
	conn := fmt.Sprintf("host=%s port=%s user=%s", pu.Hostname(), pu.Port(), pu.User.Username())
	if out, err := s.cmd("pg_basebackup", "-d", conn, "-D", data, "-R", "-X", "stream", "-c", "fast").CombinedOutput(); err != nil {
		t.Fatalf("pg_basebackup of the test cluster: %v\n%s\n(the primary's pg_hba.conf needs `host replication all 127.0.0.1/32 trust`)", err, out)
	}
	// Debian keeps a cluster's configuration beside it, not in the data
	// directory: the standby gets its own, with the defaults.
	for name, text := range map[string]string{
		"postgresql.conf": "",
		"pg_hba.conf":     "local all all trust\nhost all all 127.0.0.1/32 trust\n",
		"pg_ident.conf":   "",
	} {
		f := filepath.Join(data, name)
		if _, err := os.Stat(f); err == nil {
			continue
		}
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s.chown(t, f)
	}
	s.Start(t)
	return s
}

// newServer makes the Standby of a PostgreSQL server of one test (the
// binaries it needs beside pg_ctl named by need, what it is for by what)
// in a new temporary directory on a free port, its data directory to be
// made in Dir/data; when the test ends it is stopped at once and the
// directory removed. Without the binaries the test is skipped, unless
// CI=true, where it fails.
func newServer(t testing.TB, need, what string) *Standby {
	t.Helper()
	base := PostgresURL(t)
	bin := pgBin()
	if _, err := os.Stat(filepath.Join(bin, need)); bin == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL server binaries (%s, pg_ctl) for %s; set ROOST_TEST_PG_BIN", need, what)
		}
		t.Skipf("no PostgreSQL server binaries for %s (ROOST_TEST_PG_BIN)", what)
	}
	dir, err := os.MkdirTemp("", "roost-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Standby{Dir: dir, Port: freePort(t), bin: bin, base: base}
	t.Cleanup(func() {
		s.run(t, false, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "immediate", "-w", "stop")
		os.RemoveAll(s.Dir)
	})
	s.chown(t, dir) // PostgreSQL refuses to run as root
	return s
}

// chown gives a file to the postgres user when this is root.
func (s *Standby) chown(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root, a standby needs the postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// cmd runs a server binary, as the postgres user when this is root.
func (s *Standby) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (s *Standby) run(t testing.TB, must bool, name string, args ...string) {
	t.Helper()
	if out, err := s.cmd(name, args...).CombinedOutput(); err != nil && must {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// Start starts the standby (again) and waits until it answers.
func (s *Standby) Start(t testing.TB) {
	t.Helper()
	data := filepath.Join(s.Dir, "data")
	logFile := filepath.Join(s.Dir, "log")
	out, err := s.cmd("pg_ctl", "-D", data, "-l", logFile, "-w", "-t", "120", "-o",
		fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c hot_standby=on", s.Port, s.Dir),
		"start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(logFile)
		t.Fatalf("start the standby: %v\n%s\n%s", err, out, log)
	}
}

// Stop stops the standby at once (pg_ctl -m fast: its sessions end).
func (s *Standby) Stop(t testing.TB) {
	t.Helper()
	s.run(t, true, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "fast", "-w", "stop")
}

// Promote ends the standby's recovery and waits until it takes writes:
// it becomes a primary of its own, a throwaway cluster for a test to stop
// and start.
func (s *Standby) Promote(t testing.TB) {
	t.Helper()
	s.run(t, true, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-w", "-t", "60", "promote")
}

// URL is dbURL (a URL of the primary's test database) pointed at the
// standby.
func (s *Standby) URL(dbURL string) string {
	u, _ := url.Parse(dbURL)
	u.Host = fmt.Sprintf("127.0.0.1:%d", s.Port)
	return u.String()
}

// WaitCaughtUp waits until the standby has replayed everything the
// primary has written so far.
func (s *Standby) WaitCaughtUp(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	p, err := pgx.Connect(ctx, s.base)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	var lsn string
	if err := p.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := pgx.Connect(ctx, s.URL(s.base)); err == nil {
			var done bool
			err = c.QueryRow(ctx, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)`, lsn).Scan(&done)
			c.Close(ctx)
			if err == nil && done {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the standby did not catch up with the primary within a minute")
}

// Exec runs a statement on the standby.
func (s *Standby) Exec(t testing.TB, sql string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL(s.base))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s on the standby: %v", sql, err)
	}
}
