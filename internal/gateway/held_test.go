package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest/engines"
)

// tempSQLite is a SQLite store in the test's directory, closed after it.
func tempSQLite(t testing.TB) *sqlite.Store {
	st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
	t.Cleanup(func() { st.Close() })
	return st
}

func post(h http.Handler, key, path, body string) (int, string) {
	return do(h, key, http.MethodPost, path, body)
}

func idsBody(ids ...string) string {
	b, _ := json.Marshal(map[string][]string{"ids": ids})
	return string(b)
}

func namesBody(names ...string) string {
	b, _ := json.Marshal(map[string][]string{"usernames": names})
	return string(b)
}

// lastEntry is the last row of st's upstream ledger.
func lastEntry(t testing.TB, st gatewayStore) ledger.Entry {
	t.Helper()
	entries, err := st.Gateway().UpstreamLedger(context.Background())
	if err != nil || len(entries) == 0 {
		t.Fatalf("upstream ledger: %d rows, %v", len(entries), err)
	}
	return entries[len(entries)-1]
}

// asks is what a by-id request through a front cost: its upstream calls,
// the body upstream last received, and what the caller paid.
type asks struct {
	calls int64
	body  string
	paid  int64
}

// ask sends a request through f and the same one to upstream directly,
// and fails unless both answer alike.
func ask(t testing.TB, f *front, up *upstream, key string, keyID int64, method, path, body string) (asks, string) {
	t.Helper()
	wantCode, want := do(up.h, up.key, method, path, body)
	calls, bal := up.calls.Load(), balance(t, f.store, keyID)
	empty := ""
	up.body.Store(&empty)
	code, got := do(f.h, key, method, path, body)
	if code != wantCode || code == http.StatusOK && got != want {
		t.Fatalf("%s %s %s:\n got %d %.600s\nwant %d %.600s", method, path, body, code, got, wantCode, want)
	}
	return asks{calls: up.calls.Load() - calls, body: *up.body.Load(), paid: bal - balance(t, f.store, keyID)}, got
}

func TestHeldPostsSQLite(t *testing.T) { testHeldPosts(t, tempSQLite(t)) }

func TestHeldPostsPostgres(t *testing.T) { testHeldPosts(t, engines.Postgres(t)) }

// testHeldPosts: after a timeline page, tweets-by-ids of its posts (quotes
// and a repost among them), one of them by /tweets/{id} and
// /statuses/show, are answered from the store with no upstream call,
// byte for byte as upstream answers; three held and two not ask upstream
// once for the two, merged in the order asked; an unknown id stays absent
// (alone, upstream's 404); past the tweet freshness they are fetched
// again. The caller pays per returned item throughout; the upstream
// ledger records only the calls' cost.
func testHeldPosts(t *testing.T, st gatewayStore) {
	ctx := context.Background()
	up := sharedUpstream(t)
	f := newFront(t, up, st)
	key, kid := newKey(st, 1000*1_000_000)
	uid := up.sum.Examples.UserID
	author, err := up.store.User(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	pinned := strconv.FormatInt(author.PinnedPostID, 10)
	notPinned := func(ids []string) []string {
		return slices.DeleteFunc(ids, func(id string) bool { return id == pinned })
	}
	code, page := get(f.h, key, userPath(uid, "tweets"))
	ids := notPinned(tweetIDs(t, page))
	if code != http.StatusOK || len(ids) < 10 || !strings.Contains(page, `"quoted_status":{`) ||
		!strings.Contains(page, `"retweeted_status":{`) {
		t.Fatalf("the timeline page has %d posts (want 10 or more, a quote and a repost among them): %d", len(ids), code)
	}
	price := billing.DefaultPrice
	five := []string{ids[4], ids[0], ids[7], ids[2], ids[9]}
	for _, want := range [][]string{five, ids} {
		a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(want...))
		if a.calls != 0 || a.paid != int64(len(want))*price {
			t.Fatalf("%d posts held: %d upstream calls, paid %d", len(want), a.calls, a.paid)
		}
		if e := lastEntry(t, st); !e.CacheHit || e.Micros != 0 || e.Status != http.StatusOK || e.Endpoint != "tweets_by_ids" {
			t.Fatalf("upstream ledger of a held answer: %+v", e)
		}
	}
	for _, path := range []string{"/social/tweets/" + ids[3], "/social/statuses/show?id=" + ids[3]} {
		if a, _ := ask(t, f, up, key, kid, http.MethodGet, path, ""); a.calls != 0 || a.paid != price {
			t.Fatalf("%s held: %d upstream calls, paid %d", path, a.calls, a.paid)
		}
	}

	// Three held, two not: one call for the two.
	pages := walk(t, up.h, up.key, userPath(uid, "tweets"))
	other := notPinned(tweetIDs(t, pages[1]))
	a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(other[0], ids[1], ids[3], other[1], ids[5]))
	if a.calls != 1 || a.body != idsBody(other[0], other[1]) || a.paid != 5*price {
		t.Fatalf("3 held, 2 not: %d upstream calls asking %s, paid %d", a.calls, a.body, a.paid)
	}
	if e := lastEntry(t, st); e.CacheHit || e.Micros != 2*price || e.Status != http.StatusOK {
		t.Fatalf("upstream ledger of a merged answer: %+v", e)
	}

	// An id upstream does not know stays absent; alone it is upstream's 404, free.
	a, _ = ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(ids[6], "1"))
	if a.calls != 1 || a.body != idsBody("1") || a.paid != price || lastEntry(t, st).Status != http.StatusOK {
		t.Fatalf("held and unknown: %d upstream calls asking %s, paid %d", a.calls, a.body, a.paid)
	}
	for _, r := range []struct{ method, path, body string }{
		{http.MethodPost, "/social/tweets-by-ids", idsBody("1")}, {http.MethodGet, "/social/tweets/1", ""},
	} {
		a, got := ask(t, f, up, key, kid, r.method, r.path, r.body)
		if a.calls != 1 || a.paid != 0 || !strings.Contains(got, "Tweet not found") || lastEntry(t, st).Status != http.StatusNotFound {
			t.Fatalf("%s %s of an unknown post: %d upstream calls, paid %d: %s", r.path, r.body, a.calls, a.paid, got)
		}
	}

	// Past the tweet freshness: fetched again, all of them.
	later := testNow.Add(DefaultFresh[ClassTweet] + time.Second)
	f.now.Store(&later)
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(five...)); a.calls != 1 || a.body != idsBody(five...) {
		t.Fatalf("stale posts: %d upstream calls asking %s", a.calls, a.body)
	}
	if a, _ := ask(t, f, up, key, kid, http.MethodGet, "/social/tweets/"+ids[8], ""); a.calls != 1 {
		t.Fatalf("a stale post: %d upstream calls", a.calls)
	}
	// What that call fetched is held again.
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(ids[8], five[1])); a.calls != 0 {
		t.Fatalf("posts fetched by id: %d upstream calls", a.calls)
	}
}

func TestHeldUsersSQLite(t *testing.T) { testHeldUsers(t, tempSQLite(t)) }

func TestHeldUsersPostgres(t *testing.T) { testHeldUsers(t, engines.Postgres(t)) }

// profiles are the ids and screen names of a page of users.
func profiles(t testing.TB, body string) (ids, names []string) {
	t.Helper()
	var env struct {
		Users []struct {
			ID   string `json:"id_str"`
			Name string `json:"screen_name"`
		} `json:"users"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatal(err)
	}
	for _, u := range env.Users {
		ids, names = append(ids, u.ID), append(names, u.Name)
	}
	return ids, names
}

// testHeldUsers: after a page of followers, users-by-usernames (in
// another case), users-by-ids and /user/{id|name} of them are answered
// from the store, byte for byte as upstream answers; three held and two
// not ask upstream once for the two; an unknown name stays absent
// (alone, upstream's 404). A profile stored from users-by-* (can_dm
// null) answers users-by-* but not /user/{id}, which shows can_dm; one a
// community's members page overwrote (fewer fields) answers nothing
// until fetched again; past the profile freshness all are fetched again.
func testHeldUsers(t *testing.T, st gatewayStore) {
	up := sharedUpstream(t)
	f := newFront(t, up, st)
	key, kid := newKey(st, 1000*1_000_000)
	uid := up.sum.Examples.UserID
	code, page := get(f.h, key, userPath(uid, "followers"))
	ids, names := profiles(t, page)
	if code != http.StatusOK || len(ids) < 6 {
		t.Fatalf("%d followers: %d %s", len(ids), code, page)
	}
	price := billing.DefaultPrice
	shout := []string{strings.ToUpper(names[3]), strings.ToLower(names[0]), names[5], strings.ToUpper(names[1]), names[2]}
	for _, r := range []struct{ method, path, body string }{
		{http.MethodPost, "/social/users-by-usernames", namesBody(shout...)},
		{http.MethodPost, "/social/users-by-ids", idsBody(ids[4], ids[0], ids[5], ids[2], ids[1])},
		{http.MethodGet, "/social/user/" + ids[3], ""},
		{http.MethodGet, "/social/user/" + strings.ToUpper(names[3]), ""},
	} {
		a, _ := ask(t, f, up, key, kid, r.method, r.path, r.body)
		if a.calls != 0 || a.paid == 0 || a.paid%price != 0 {
			t.Fatalf("%s %s held: %d upstream calls, paid %d", r.path, r.body, a.calls, a.paid)
		}
	}

	// Three held, two not: one call for the two, by id or by name.
	oids, onames := profiles(t, walk(t, up.h, up.key, userPath(uid, "followers"))[1])
	if len(oids) < 4 {
		t.Fatalf("%d followers on the second page", len(oids))
	}
	a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-ids", idsBody(oids[0], ids[1], ids[3], oids[1], ids[5]))
	if a.calls != 1 || a.body != idsBody(oids[0], oids[1]) || a.paid != 5*price || lastEntry(t, st).Micros != 2*price {
		t.Fatalf("3 held, 2 not: %d upstream calls asking %s, paid %d", a.calls, a.body, a.paid)
	}
	a, _ = ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-usernames",
		namesBody(strings.ToUpper(names[4]), "nobody_at_all", onames[2], names[0]))
	if a.calls != 1 || a.body != namesBody("nobody_at_all", onames[2]) || a.paid != 3*price {
		t.Fatalf("held, unknown and not held: %d upstream calls asking %s, paid %d", a.calls, a.body, a.paid)
	}
	if a, got := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-usernames", namesBody("nobody_at_all")); a.calls != 1 ||
		a.paid != 0 || !strings.Contains(got, "User not found") {
		t.Fatalf("an unknown name: %d upstream calls, paid %d: %s", a.calls, a.paid, got)
	}

	// Fetched by users-by-ids: held for users-by-*, not for /user/{id}.
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-usernames", namesBody(onames[0], onames[1])); a.calls != 0 {
		t.Fatalf("users fetched by users-by-ids: %d upstream calls", a.calls)
	}
	if a, _ := ask(t, f, up, key, kid, http.MethodGet, "/social/user/"+oids[0], ""); a.calls != 1 {
		t.Fatalf("/user/{id} of a user fetched by users-by-ids (no can_dm): %d upstream calls", a.calls)
	}
	if a, _ := ask(t, f, up, key, kid, http.MethodGet, "/social/user/"+onames[0], ""); a.calls != 0 {
		t.Fatalf("/user/{name} of a user fetched by /user/{id}: %d upstream calls", a.calls)
	}

	// A community's members (id, names, image) overwrite what was held.
	community := "/social/community/" + strconv.FormatInt(up.sum.Examples.CommunityID, 10) + "/members"
	_, members := get(up.h, up.key, community)
	mids, _ := profiles(t, members)
	if len(mids) < 2 {
		t.Fatal("the example community has fewer than two members")
	}
	for _, m := range [][]string{{mids[0]}, {mids[1]}} {
		if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-ids", idsBody(m...)); a.calls != 1 {
			t.Fatalf("a member not held: %d upstream calls", a.calls)
		}
	}
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-ids", idsBody(mids[:2]...)); a.calls != 0 {
		t.Fatalf("members fetched: %d upstream calls", a.calls)
	}
	if code, _ := get(f.h, key, community); code != http.StatusOK {
		t.Fatal(code)
	}
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-ids", idsBody(mids[:2]...)); a.calls != 1 {
		t.Fatalf("members overwritten by a members page: %d upstream calls", a.calls)
	}

	// Past the profile freshness: fetched again, all of them.
	later := testNow.Add(DefaultFresh[ClassProfile] + time.Second)
	f.now.Store(&later)
	want := []string{ids[4], ids[0], ids[5]}
	if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/users-by-ids", idsBody(want...)); a.calls != 1 || a.body != idsBody(want...) {
		t.Fatalf("stale users: %d upstream calls asking %s", a.calls, a.body)
	}
}

// TestHeldPinned: a post's is_pinned is what its page of the full shape
// said, although the store keeps the author's pinned post from the last
// copy of the author in the page (here a post that is not pinned).
func TestHeldPinned(t *testing.T) {
	ctx := context.Background()
	up := sharedUpstream(t)
	f := newFront(t, up, tempSQLite(t))
	key, kid := newKey(f.store, 1000*1_000_000)
	uid := up.sum.Examples.UserID
	author, err := up.store.User(ctx, uid)
	if err != nil || author.PinnedPostID == 0 {
		t.Fatalf("the example user has no pinned post: %v", err)
	}
	pinned := strconv.FormatInt(author.PinnedPostID, 10)
	_, page := get(up.h, up.key, userPath(uid, "tweets"))
	other := tweetIDs(t, page)[0]
	for _, both := range [][]string{{pinned, other}, {other, pinned}} {
		f.gw.memory = newMemory(memoryBytes)
		if a, _ := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(both...)); a.calls > 1 {
			t.Fatalf("%d upstream calls", a.calls)
		}
		a, got := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody(pinned))
		if a.calls != 0 || !strings.Contains(got, `"is_pinned":true`) {
			t.Fatalf("after %v: the pinned post, %d upstream calls: %.200s", both, a.calls, got)
		}
	}
}

// TestHeldEmbedded: a post whose quoted post the store lacks is asked
// upstream (here it knows neither: 404), and so is one that a page showed
// only as deep as it shows no repost; a post the store holds that
// upstream no longer has is answered while fresh, then absent.
func TestHeldEmbedded(t *testing.T) {
	ctx := context.Background()
	up := sharedUpstream(t)
	f := newFront(t, up, tempSQLite(t))
	key, kid := newKey(f.store, 1000*1_000_000)
	_, page := get(up.h, up.key, userPath(up.sum.Examples.UserID, "tweets"))
	var one string
	for _, id := range tweetIDs(t, page) {
		if _, one = get(up.h, up.key, "/social/tweets/"+id); strings.Contains(one, `"quoted_status_id":null,"quoted_status_id_str":null,"is_quote_status":false`) &&
			strings.Contains(one, `"retweeted_status":null`) {
			break
		}
		one = ""
	}
	if one == "" {
		t.Fatal("no post of the page quotes and reposts nothing")
	}
	var v struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(one), &v); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(v.ID, 10)
	fake := func(newID string, quoted bool) []byte {
		s := strings.Replace(one, `"id":`+id+`,"id_str":"`+id+`"`, `"id":`+newID+`,"id_str":"`+newID+`"`, 1)
		if quoted {
			s = strings.Replace(s, `"quoted_status_id":null,"quoted_status_id_str":null,"is_quote_status":false`,
				`"quoted_status_id":4,"quoted_status_id_str":"4","is_quote_status":true`, 1)
		}
		return []byte(s)
	}
	// Stored as if upstream had answered them: 2 upstream does not know,
	// 3 quoting 4, which neither knows.
	for _, p := range [][]byte{fake("2", false), fake("3", true)} {
		f.gw.storeData(ctx, httpapi.UpstreamRequest{Route: "tweet"}, p, testNow)
	}
	// 5 quotes 6, which quotes 7, a repost: as deep as 7, a page shows no
	// retweeted_status, so 7 answers within 5 only.
	nest := func(id, quoted int64, q map[string]any) map[string]any {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(fake(strconv.FormatInt(id, 10), false)))
		dec.UseNumber() // ids beyond a float's
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if quoted != 0 {
			m["quoted_status_id"], m["quoted_status_id_str"], m["is_quote_status"] = quoted, strconv.FormatInt(quoted, 10), true
			m["quoted_status"] = q
		}
		return m
	}
	deep, err := json.Marshal([]any{nest(5, 6, nest(6, 7, nest(7, 0, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	f.gw.storeData(ctx, httpapi.UpstreamRequest{Route: "tweets_by_ids"}, deep, testNow)
	calls := up.calls.Load()
	if code, got := post(f.h, key, "/social/tweets-by-ids", idsBody("5")); code != http.StatusOK ||
		!strings.Contains(got, `"id_str":"7"`) || up.calls.Load() != calls {
		t.Fatalf("a quote of a quote: %d %.200s, %d upstream calls", code, got, up.calls.Load()-calls)
	}
	if code, _ := post(f.h, key, "/social/tweets-by-ids", idsBody("7")); code != http.StatusNotFound || up.calls.Load() != calls+1 {
		t.Fatalf("a post held only as deep as it shows no repost: %d, %d upstream calls", code, up.calls.Load()-calls)
	}
	calls = up.calls.Load()
	code, got := post(f.h, key, "/social/tweets-by-ids", idsBody("2"))
	if code != http.StatusOK || !strings.Contains(got, `"id_str":"2"`) || up.calls.Load() != calls {
		t.Fatalf("a held post: %d %.200s, %d upstream calls", code, got, up.calls.Load()-calls)
	}
	if code, _ := post(f.h, key, "/social/tweets-by-ids", idsBody("3")); code != http.StatusNotFound || up.calls.Load() != calls+1 {
		t.Fatalf("a post quoting one not stored: %d, %d upstream calls", code, up.calls.Load()-calls)
	}
	later := testNow.Add(DefaultFresh[ClassTweet] + time.Second)
	f.now.Store(&later)
	a, got := ask(t, f, up, key, kid, http.MethodPost, "/social/tweets-by-ids", idsBody("2", id))
	if a.calls != 1 || a.body != idsBody("2", id) || strings.Contains(got, `"id_str":"2"`) || a.paid != billing.DefaultPrice {
		t.Fatalf("a stale post upstream no longer has: %d upstream calls asking %s, paid %d: %.200s", a.calls, a.body, a.paid, got)
	}
}

// TestHeldBudgetSpent: with the shared budget spent, what the store holds
// is still answered; a request that needs upstream is 402.
func TestHeldBudgetSpent(t *testing.T) {
	up := sharedUpstream(t)
	st := tempSQLite(t)
	f := newFront(t, up, st)
	key, _ := newKey(st, 1000*1_000_000)
	_, page := get(f.h, key, userPath(up.sum.Examples.UserID, "tweets"))
	ids := tweetIDs(t, page)
	poor := newFront(t, up, st, Limit{Micros: 1})
	calls := up.calls.Load()
	if code, body := post(poor.h, key, "/social/tweets-by-ids", idsBody(ids[1], ids[2])); code != http.StatusOK || up.calls.Load() != calls {
		t.Fatalf("held posts under a spent budget: %d %.200s", code, body)
	}
	if code, body := post(poor.h, key, "/social/tweets-by-ids", idsBody(ids[1], "1")); code != http.StatusPaymentRequired || up.calls.Load() != calls {
		t.Fatalf("a post not held under a spent budget: %d %.200s", code, body)
	}
}

// TestRouteShapes: every data route has a page shape, and the by-id
// routes are data routes.
func TestRouteShapes(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(routeShapes)), slices.Sorted(maps.Keys(routeClass)); !slices.Equal(got, want) {
		t.Errorf("routes with a shape %v\nroutes with a class %v", got, want)
	}
	for r := range byIDRoutes {
		if _, ok := routeClass[r]; !ok {
			t.Errorf("by-id route %s has no class", r)
		}
	}
}

// fetchedRows counts st's fetched marks taken at at.
func fetchedRows(t testing.TB, st gatewayStore, at time.Time) int {
	t.Helper()
	n := 0
	err := st.Gateway().Read.Query(context.Background(), `SELECT count(*) FROM gateway_fetched WHERE fetched_at = ?`,
		[]any{at.UnixMicro()}, func(r sqlstore.Rows) error { return r.Scan(&n) })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFetchedMarksSQLite(t *testing.T) { testFetchedMarks(t, tempSQLite(t)) }

func TestFetchedMarksPostgres(t *testing.T) { testFetchedMarks(t, engines.Postgres(t)) }

// testFetchedMarks: marks are kept one an entity and kind (the later of
// two in one call, the newer call's over the older), read back by kind,
// in any number, and pruned by age.
func testFetchedMarks(t *testing.T, st gatewayStore) {
	ctx := context.Background()
	g := st.Gateway()
	var marks []ledger.Fetched
	for id := int64(1); id <= 1200; id++ { // more than one statement's rows
		marks = append(marks, ledger.Fetched{Kind: ledger.KindPost, ID: id, At: testNow, Shape: ledger.ShapeWhole, Pinned: ledger.PinnedNo})
	}
	marks = append(marks,
		ledger.Fetched{Kind: ledger.KindPost, ID: 7, At: testNow, Shape: ledger.ShapeAllBut, Pinned: ledger.PinnedYes},
		ledger.Fetched{Kind: ledger.KindUser, ID: 7, At: testNow.Add(-time.Hour), Shape: ledger.ShapeAllBut})
	if err := g.MarkFetched(ctx, marks); err != nil {
		t.Fatal(err)
	}
	if err := g.MarkFetched(ctx, []ledger.Fetched{{Kind: ledger.KindPost, ID: 9, At: testNow.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 1300)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	posts, err := g.Fetched(ctx, ledger.KindPost, ids)
	if err != nil {
		t.Fatal(err)
	}
	users, err := g.Fetched(ctx, ledger.KindUser, ids)
	if err != nil {
		t.Fatal(err)
	}
	want7 := ledger.Fetched{Kind: ledger.KindPost, ID: 7, At: testNow, Shape: ledger.ShapeAllBut, Pinned: ledger.PinnedYes}
	want9 := ledger.Fetched{Kind: ledger.KindPost, ID: 9, At: testNow.Add(time.Minute)}
	if len(posts) != 1200 || !posts[7].At.Equal(want7.At) || posts[7].Shape != want7.Shape || posts[7].Pinned != want7.Pinned ||
		!posts[9].At.Equal(want9.At) || posts[9].Shape != want9.Shape || posts[9].Pinned != want9.Pinned ||
		posts[1].Shape != ledger.ShapeWhole || len(users) != 1 || users[7].Shape != ledger.ShapeAllBut {
		t.Fatalf("%d posts (7: %+v, 9: %+v), %d users (%+v)", len(posts), posts[7], posts[9], len(users), users[7])
	}
	if n, err := g.PruneFetched(ctx, testNow); err != nil || n != 1 {
		t.Fatalf("pruned %d marks older than now (%v), want the user's", n, err)
	}
	if _, err := g.Fetched(ctx, "list", ids); err == nil {
		t.Fatal("marks of an unknown kind were read")
	}
}
