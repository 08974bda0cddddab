package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// tappedUpstream is a roost over a small generated SQLite network, served
// over HTTP through a tap that counts the data requests and can hold, drop
// or cut them.
type tappedUpstream struct {
	url, key string
	db       string // the SQLite file
	ex       gen.Examples
	tap      *upstreamTap
	// c walks the upstream directly (its requests pass the tap too),
	// through walks.
	c     *client.Client
	walks *http.Transport
}

// newTappedUpstream generates the network (seed 7, 200 users, 6,000
// posts) into a fresh SQLite file with one key, with the built binary (the
// race detector would slow generating tenfold), and serves it in-process.
func newTappedUpstream(t *testing.T) *tappedUpstream {
	t.Helper()
	path := filepath.Join(t.TempDir(), "up.db")
	var sum gen.Summary
	out := roostExec(t, "gen", "--db", path, "--seed", "7", "--users", "200", "--posts", "6000")
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("gen summary: %v\n%s", err, out)
	}
	key := strings.TrimSpace(roostExec(t, "keys", "create", "--db", path, "--credits", "1000000", "--name", "harvest"))
	st, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tp := &upstreamTap{next: httpapi.New(httpapi.Config{RateLimit: -1, MaxConcurrent: -1}, st, nil, nil)}
	tp.closed = sync.NewCond(&tp.mu)
	srv := httptest.NewUnstartedServer(tp)
	srv.Config.ConnState = tp.connState
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(tp.releaseAll) // a handler still held must not keep srv.Close waiting
	// The walks' own connections are closed after each walk (see quiet).
	tr := &http.Transport{}
	c, err := client.New(srv.URL, key, client.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	return &tappedUpstream{url: srv.URL, key: key, db: path, ex: sum.Examples, tap: tp, c: c, walks: tr}
}

// query runs a read-only SQL query on the upstream's file and returns the
// first column of its rows.
func (u *tappedUpstream) query(t *testing.T, q string, args ...any) []int64 {
	t.Helper()
	return sqlInts(t, u.db, q, args...)
}

// upstreamTap passes requests to next; each data request (under the client's
// prefix) is numbered from 1 in the order it arrives and shown to hook,
// which may answer it itself (return true) instead of next.
type upstreamTap struct {
	next http.Handler
	mu   sync.Mutex
	hook func(n int64, w http.ResponseWriter, r *http.Request) bool
	// held are channels of held handlers, closed by releaseAll.
	held []chan struct{}
	n    atomic.Int64 // data requests since the last arm
	// served counts data requests next answered, since the last arm.
	served atomic.Int64
	total  atomic.Int64 // data requests ever
	// busy counts the data requests being handled.
	busy sync.WaitGroup
	// open counts the connections not closed (nor hijacked) at the server;
	// closed is signalled when one closes.
	open   int
	closed *sync.Cond
}

// connState follows the server's connections.
func (p *upstreamTap) connState(_ net.Conn, s http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch s {
	case http.StateNew:
		p.open++
	case http.StateClosed, http.StateHijacked:
		p.open--
		p.closed.Broadcast()
	}
}

// quiet waits until no connection is open at the server and no data
// request is being handled. A process that has exited leaves none for
// long: its kernel closes its connections, and the server closes its end
// once it has read (and served) whatever request was left on it. Only
// then are the next run's requests counted apart from a dead one's.
func (p *upstreamTap) quiet() {
	p.mu.Lock()
	for p.open > 0 {
		p.closed.Wait()
	}
	p.mu.Unlock()
	p.busy.Wait()
}

func (p *upstreamTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, client.DefaultPrefix+"/") {
		p.next.ServeHTTP(w, r)
		return
	}
	p.busy.Add(1)
	defer p.busy.Done()
	p.total.Add(1)
	n := p.n.Add(1)
	p.mu.Lock()
	hook := p.hook
	p.mu.Unlock()
	if hook != nil && hook(n, w, r) {
		return
	}
	p.next.ServeHTTP(w, r)
	p.served.Add(1)
}

// arm sets the hook (nil: none) and numbers requests from 1 again.
func (p *upstreamTap) arm(hook func(n int64, w http.ResponseWriter, r *http.Request) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hook = hook
	p.n.Store(0)
	p.served.Store(0)
}

// hold returns a channel a hook can wait on until releaseAll.
func (p *upstreamTap) hold() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.held = append(p.held, ch)
	return ch
}

// releaseAll lets every held handler go on.
func (p *upstreamTap) releaseAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range p.held {
		close(ch)
	}
	p.held = nil
}

// dropConn closes the request's connection without an answer: the client
// sees the connection end (EOF or a reset).
func dropConn(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// cutBody serves the request through next but closes the connection half
// way through the body, after the status line and a Content-Length of the
// whole: the client reads an unexpected EOF.
func cutBody(t *testing.T, next http.Handler, w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		rec.Code, http.StatusText(rec.Code), len(body))
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

// harvestWant is what the upstream serves for one walk, read through the
// client package, and what a database harvest of it must hold.
type harvestWant struct {
	// ids are the items' ids in the order of the walk, each once.
	ids []string
	// served are the items' ids as the pages hold them: ids, but for
	// community posts, whose pages after the first repeat the pinned post
	// at their top (as the hosted API serves and bills it).
	served []string
	// missing are the ids of a by-ids walk the server did not return.
	missing []int64
	// answers are the lines roost harvest prints for a by-ids walk: found
	// or missing, TAB, the id, for every id in order.
	answers []string
	// posts and users are the ids a database must hold after the walk
	// (sorted): the items, the posts embedded in them (quoted, reposted),
	// their authors, the users they reply to and mention (stubs, as
	// roost import stores them).
	posts, users []int64
	// reposts are the "post user" pairs of the native reposts among the
	// walk's posts (sorted).
	reposts []string
	// rel selects the relation rows of a walk of users from a harvest
	// database, newest first ("" for walks of posts); relArg is its
	// argument. The rows must be ids, in order.
	rel    string
	relArg int64
	// roles are the community roles of a community-members walk, by
	// user id.
	roles map[int64]string
	// requests is how many data requests the walk took.
	requests int64
}

// walkKind walks what a harvest of kind arg walks, through the client
// directly, page by page, as the harvest pages (by ids: 100 at a time).
func walkKind(t *testing.T, u *tappedUpstream, kind, arg string, ids []int64) harvestWant {
	t.Helper()
	ctx := context.Background()
	c := u.c
	var w harvestWant
	posts, users := map[int64]bool{}, map[int64]bool{}
	reposts := map[string]bool{}
	var addTweet func(tw client.Tweet)
	addTweet = func(tw client.Tweet) {
		posts[mustID(t, tw.IDStr)] = true
		users[mustID(t, tw.User.IDStr)] = true
		if tw.InReplyToUserIDStr != nil && tw.InReplyToScreenName != nil && *tw.InReplyToScreenName != "" {
			users[mustID(t, *tw.InReplyToUserIDStr)] = true
		}
		if tw.Entities != nil {
			for _, m := range tw.Entities.UserMentions {
				if m.IDStr != "" {
					users[mustID(t, m.IDStr)] = true
				}
			}
		}
		if tw.QuotedStatus != nil {
			addTweet(*tw.QuotedStatus)
		}
		if r := tw.RetweetedStatus; r != nil {
			addTweet(*r)
			reposts[r.IDStr+" "+tw.User.IDStr] = true
		}
	}
	tweets := func(seq func(func(client.Tweet, error) bool)) {
		for tw, err := range seq {
			if err != nil {
				t.Fatalf("walk %s %s: %v", kind, arg, err)
			}
			w.ids = append(w.ids, tw.IDStr)
			addTweet(tw)
		}
	}
	usersOf := func(seq func(func(client.User, error) bool)) {
		for us, err := range seq {
			if err != nil {
				t.Fatalf("walk %s %s: %v", kind, arg, err)
			}
			w.ids = append(w.ids, us.IDStr)
			users[mustID(t, us.IDStr)] = true
		}
	}
	id := func() int64 { return mustID(t, arg) }
	before := u.tap.total.Load()
	switch kind {
	case "search":
		tweets(c.SearchAll(ctx, arg, client.Latest))
	case "timeline":
		tweets(c.UserTweetsAll(ctx, id()))
	case "replies":
		tweets(c.UserTweetsAndRepliesAll(ctx, id()))
	case "thread":
		tweets(c.ThreadAll(ctx, id()))
	case "list-posts":
		tweets(c.ListTweetsAll(ctx, id()))
	case "community-posts":
		tweets(c.CommunityTweetsAll(ctx, id(), client.Latest))
		// The pages as served, the pinned post at the top of each but the
		// first.
		for cur := ""; ; {
			p, err := c.CommunityTweets(ctx, id(), client.Latest, cur)
			if err != nil {
				t.Fatalf("walk %s %s: %v", kind, arg, err)
			}
			for _, tw := range p.Items {
				w.served = append(w.served, tw.IDStr)
			}
			if cur = p.NextCursor; cur == "" || len(p.Items) == 0 {
				break
			}
		}
		var once []string
		for _, v := range w.served {
			if !slices.Contains(once, v) {
				once = append(once, v)
			}
		}
		if !slices.Equal(once, w.ids) {
			t.Fatalf("community posts: the pages hold %v once each, the walk %v", once, w.ids)
		}
	case "mentions":
		tweets(c.MentionsAll(ctx, arg))
	case "followers":
		usersOf(c.FollowersAll(ctx, id()))
		w.rel, w.relArg = "SELECT follower_id FROM follows WHERE followee_id = ? ORDER BY created_at DESC", id()
	case "verified-followers":
		usersOf(c.VerifiedFollowersAll(ctx, id()))
		w.rel, w.relArg = "SELECT follower_id FROM follows WHERE followee_id = ? ORDER BY created_at DESC", id()
	case "following":
		usersOf(c.FollowingAll(ctx, id()))
		w.rel, w.relArg = "SELECT followee_id FROM follows WHERE follower_id = ? ORDER BY created_at DESC", id()
	case "list-members":
		usersOf(c.ListMembersAll(ctx, id()))
		w.rel, w.relArg = "SELECT user_id FROM list_members WHERE list_id = ? ORDER BY created_at DESC", id()
	case "reposters":
		usersOf(c.RetweetersAll(ctx, id()))
		w.rel, w.relArg = "SELECT user_id FROM reposts WHERE post_id = ? ORDER BY created_at DESC", id()
	case "community-members":
		w.roles = map[int64]string{}
		for m, err := range c.CommunityMembersAll(ctx, id()) {
			if err != nil {
				t.Fatalf("walk %s %s: %v", kind, arg, err)
			}
			w.ids = append(w.ids, m.IDStr)
			users[mustID(t, m.IDStr)] = true
			w.roles[mustID(t, m.IDStr)] = m.CommunityRole
		}
		w.rel, w.relArg = "SELECT user_id FROM community_members WHERE community_id = ? ORDER BY joined_at DESC", id()
	case "posts-by-ids", "users-by-ids":
		for i := 0; i < len(ids); i += 100 {
			part := ids[i:min(i+100, len(ids))]
			found := map[int64]bool{}
			var err error
			if kind == "posts-by-ids" {
				var ts []client.Tweet
				ts, err = c.TweetsByIDs(ctx, part)
				for _, tw := range ts {
					w.ids = append(w.ids, tw.IDStr)
					found[mustID(t, tw.IDStr)] = true
					addTweet(tw)
				}
			} else {
				var us []client.User
				us, err = c.UsersByIDs(ctx, part)
				for _, us := range us {
					w.ids = append(w.ids, us.IDStr)
					found[mustID(t, us.IDStr)] = true
					users[mustID(t, us.IDStr)] = true
				}
			}
			if ae := (*client.Error)(nil); errors.As(err, &ae) && ae.Status == 404 {
				err = nil // none of them was found
			}
			if err != nil {
				t.Fatalf("walk %s: %v", kind, err)
			}
			for _, v := range part {
				if found[v] {
					w.answers = append(w.answers, fmt.Sprintf("found\t%d", v))
				} else {
					w.missing = append(w.missing, v)
					w.answers = append(w.answers, fmt.Sprintf("missing\t%d", v))
				}
			}
		}
	default:
		t.Fatalf("no walk for kind %q", kind)
	}
	u.walks.CloseIdleConnections()
	w.requests = u.tap.total.Load() - before
	if w.served == nil {
		w.served = w.ids
	} else {
		w.requests /= 2 // walked twice
	}
	w.posts, w.users = sortedKeys(posts), sortedKeys(users)
	for k := range reposts {
		w.reposts = append(w.reposts, k)
	}
	slices.Sort(w.reposts)
	return w
}

func sortedKeys(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("id %q: %v", s, err)
	}
	return v
}

// harvestFileIDs reads the item ids of a harvest file (JSON lines, gzip
// members when its name ends in .gz), in order.
func harvestFileIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return harvestLineIDs(t, path, data)
}

// harvestLineIDs reads the item ids of the bytes of a harvest file named
// name; every line must be a whole page.
func harvestLineIDs(t *testing.T, name string, data []byte) []string {
	t.Helper()
	var r io.Reader = bytes.NewReader(data)
	if strings.HasSuffix(name, ".gz") {
		if len(data) == 0 {
			return []string{}
		}
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r = zr
	}
	ids := []string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		// A page of users, of posts, or (posts-by-ids) an array of posts.
		var items []struct {
			IDStr string `json:"id_str"`
		}
		if line := sc.Bytes(); len(line) > 0 && line[0] == '[' {
			if err := json.Unmarshal(line, &items); err != nil {
				t.Fatalf("%s: line %.200q: %v", name, sc.Text(), err)
			}
		} else {
			var p struct {
				Tweets, Users []struct {
					IDStr string `json:"id_str"`
				}
			}
			if err := json.Unmarshal(line, &p); err != nil {
				t.Fatalf("%s: line %.200q: %v", name, sc.Text(), err)
			}
			items = append(p.Tweets, p.Users...)
		}
		for _, it := range items {
			ids = append(ids, it.IDStr)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ids
}

// sqlInts runs a query on a SQLite file and returns the first column of
// its rows.
func sqlInts(t *testing.T, path, q string, args ...any) []int64 {
	t.Helper()
	return sqlColumn[int64](t, path, q, args...)
}

// sqlStrings is sqlInts for text.
func sqlStrings(t *testing.T, path, q string, args ...any) []string {
	t.Helper()
	return sqlColumn[string](t, path, q, args...)
}

func sqlColumn[T any](t *testing.T, path, q string, args ...any) []T {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkHarvestDB compares a harvest database with what the walk must
// leave: exactly its posts and users, the reposts its posts imply, and for
// a walk of users exactly its relation rows in the walk's order (a gap, a
// duplicate or a page out of order shows there), with the community roles
// served.
func checkHarvestDB(t *testing.T, path string, w harvestWant) {
	t.Helper()
	if got := sqlInts(t, path, "SELECT id FROM posts ORDER BY id"); !slices.Equal(got, w.posts) {
		t.Errorf("the database holds %d posts, the walk %d; missing %v, extra %v",
			len(got), len(w.posts), missingFrom(w.posts, got), missingFrom(got, w.posts))
	}
	if got := sqlInts(t, path, "SELECT id FROM users ORDER BY id"); !slices.Equal(got, w.users) {
		t.Errorf("the database holds %d users, the walk %d; missing %v, extra %v",
			len(got), len(w.users), missingFrom(w.users, got), missingFrom(got, w.users))
	}
	var want []int64
	if w.rel != "" {
		want = make([]int64, len(w.ids))
		for i, s := range w.ids {
			want[i] = mustID(t, s)
		}
		if got := sqlInts(t, path, w.rel, w.relArg); !slices.Equal(got, want) {
			t.Errorf("relation rows newest first: %d %v\nthe walk: %d %v", len(got), got, len(want), want)
		}
	}
	// The reposts of the posts (those of a reposters walk are its relation).
	of := int64(0)
	if strings.Contains(w.rel, "FROM reposts") {
		of = w.relArg
	}
	reposts := sqlStrings(t, path, "SELECT post_id || ' ' || user_id FROM reposts WHERE post_id != ? ORDER BY 1", of)
	if !slices.Equal(reposts, w.reposts) {
		t.Errorf("reposts stored %v, implied by the walk's posts %v", reposts, w.reposts)
	}
	rels := sqlInts(t, path, "SELECT (SELECT count(*) FROM follows) + (SELECT count(*) FROM list_members) + "+
		"(SELECT count(*) FROM reposts) + (SELECT count(*) FROM community_members)")
	if n := int64(len(want) + len(w.reposts)); rels[0] != n {
		t.Errorf("%d relation rows in all, want %d", rels[0], n)
	}
	if w.roles == nil {
		return
	}
	stored := map[int64]string{}
	for _, s := range sqlStrings(t, path, "SELECT user_id || ' ' || role FROM community_members WHERE community_id = ?", w.relArg) {
		uid, role, _ := strings.Cut(s, " ")
		stored[mustID(t, uid)] = role
	}
	if !maps.Equal(stored, w.roles) {
		t.Errorf("stored community roles %v, served %v", stored, w.roles)
	}
}

// missingFrom is what of a is not in b (at most 10).
func missingFrom(a, b []int64) []int64 {
	in := map[int64]bool{}
	for _, v := range b {
		in[v] = true
	}
	var out []int64
	for _, v := range a {
		if !in[v] && len(out) < 10 {
			out = append(out, v)
		}
	}
	return out
}
