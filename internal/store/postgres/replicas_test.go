package postgres

import (
	"context"
	"crypto/sha256"
	"net/url"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestReadReplicas: with a hot standby, the data reads go to it while
// keys and debits stay on the primary; when it stops, reads fall back to
// the primary without an error, and when it is back it serves again. A
// standby that lags past the limit is skipped.
func TestReadReplicas(t *testing.T) {
	sb := storetest.StartStandby(t)
	u := freshURL(t)
	ctx := context.Background()
	s, err := OpenOptions(ctx, u, Options{ReadReplicas: []string{sb.URL(u)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Write(ctx, storetest.Fixture()); err != nil {
		t.Fatal(err)
	}
	k, err := s.CreateKey(ctx, social.APIKey{Name: "r", Prefix: "p", Digest: sha256.Sum256([]byte("r"))}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	// Pages read from a standby must not be cached under the primary's
	// content counter; keys are read on the primary and may be.
	if v, err := s.Versions(ctx); err != nil || v.Content != -1 || v.Keys < 1 {
		t.Errorf("Versions with a read replica = %+v, %v; want Content -1 and the keys counter", v, err)
	}
	sb.WaitCaughtUp(t)
	waitHealthy(t, s, true)
	standby := s.reads.replicas[0].name
	read := func() {
		t.Helper()
		if _, err := s.Search(ctx, &search.Query{}, social.Latest, social.PageReq{Limit: 5}); err != nil {
			t.Fatalf("search: %v", err)
		}
		if _, err := s.UsersByIDs(ctx, []int64{1, 2, 3}); err != nil {
			t.Fatalf("users: %v", err)
		}
		if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Endpoint: "search", Items: 1, Amount: 200}); err != nil {
			t.Fatalf("debit: %v", err)
		}
	}
	before := s.ReadsServed()
	for range 10 {
		read()
	}
	after := s.ReadsServed()
	if after[standby]-before[standby] != 20 || after["primary"] != before["primary"] {
		t.Errorf("reads: %v then %v; want 20 more at the standby, none at the primary", before, after)
	}
	if kk, _ := s.Key(ctx, k.ID); kk.Balance != 1_000_000-10*200 {
		t.Errorf("balance %d after 10 debits", kk.Balance)
	}
	// A URL that lists the standby and then the primary with
	// target_session_attrs=prefer-standby reaches the primary while the
	// standby is down: it is skipped, and it reads from the standby again
	// once the standby is back.
	multi, err := OpenOptions(ctx, u, Options{ReadReplicas: []string{preferStandby(t, sb.URL(u), u)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	waitHealthy(t, multi, true)
	if port, standby := serverOf(t, multi); port != sb.Port || !standby {
		t.Errorf("the prefer-standby URL reads from port %d (standby %v), not the standby's %d", port, standby, sb.Port)
	}
	sb.Stop(t)
	for range 10 { // every read still answers, from the primary
		read()
	}
	if s.reads.replicas[0].healthy.Load() {
		t.Errorf("a stopped standby is still used")
	}
	waitHealthy(t, multi, false)
	// Its connections reach the primary now (the standby is down).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, standby := serverOf(t, multi); !standby {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prefer-standby URL did not fall back to the primary while the standby was down")
		}
	}
	sb.Start(t)
	waitHealthy(t, s, true)
	waitHealthy(t, multi, true)
	if port, standby := serverOf(t, multi); port != sb.Port || !standby {
		t.Errorf("after the standby's restart the prefer-standby URL reads from port %d (standby %v), not the standby's %d", port, standby, sb.Port)
	}
	mid := s.ReadsServed()
	read()
	if s.ReadsServed()[standby] != mid[standby]+2 {
		t.Errorf("the standby does not serve again after it restarted: %v", s.ReadsServed())
	}
	// A standby whose replay is paused while the primary writes falls
	// behind: past the limit it is skipped, and caught up it serves again.
	lagged, err := OpenOptions(ctx, u, Options{ReadReplicas: []string{sb.URL(u)}, MaxReplicaLag: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lagged.Close()
	waitHealthy(t, lagged, true)
	sb.Exec(t, `SELECT pg_wal_replay_pause()`)
	time.Sleep(200 * time.Millisecond)
	if _, err := s.CreateKey(ctx, social.APIKey{Name: "lag", Prefix: "p", Digest: sha256.Sum256([]byte("lag"))}, 1); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, lagged, false)
	sb.Exec(t, `SELECT pg_wal_replay_resume()`)
	waitHealthy(t, lagged, true)
}

func waitHealthy(t *testing.T, s *Store, want bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.reads.replicas[0].healthy.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the standby's health did not become %v", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// preferStandby is a URL of the standby's and then the primary's host
// with target_session_attrs=prefer-standby.
func preferStandby(t *testing.T, standby, primary string) string {
	t.Helper()
	su, err := url.Parse(standby)
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(primary)
	if err != nil {
		t.Fatal(err)
	}
	su.Host += "," + pu.Host
	q := su.Query()
	q.Set("target_session_attrs", "prefer-standby")
	su.RawQuery = q.Encode()
	return su.String()
}

// serverOf is the port of the node s's first read replica reads from and
// whether it is a standby.
func serverOf(t *testing.T, s *Store) (port int, standby bool) {
	t.Helper()
	err := s.reads.replicas[0].pool.QueryRow(context.Background(), `SELECT inet_server_port(), pg_is_in_recovery()`).Scan(&port, &standby)
	if err != nil {
		t.Fatalf("ask the read replica's node: %v", err)
	}
	return port, standby
}
