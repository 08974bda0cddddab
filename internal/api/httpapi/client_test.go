package httpapi

import (
	"context"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/social"
)

// TestClient drives roost through package client, over a real HTTP server
// on each engine, checking every answer against the store: walks (every
// paged endpoint), objects (every single-object and batch endpoint, under
// both prefixes), research (counts, top values, exports, networks) and
// monitors (the monitoring and webhook endpoints). When all four have
// run, every route of routes() must have answered one of their requests
// with a 2xx: a route the client has no method for fails the test.
func TestClient(t *testing.T) { eachEngine(t, testClient) }

func testClient(t *testing.T, eng engine) {
	seen := newRouteLog()
	drives := []struct {
		name string
		run  func(t *testing.T, eng engine, seen *routeLog)
	}{{"walks", testClientWalks}, {"objects", testClientObjects}, {"research", testClientResearch}, {"monitors", testClientMonitors}}
	done := 0
	for _, d := range drives {
		t.Run(d.name, func(t *testing.T) {
			defer func() {
				if !t.Skipped() && !t.Failed() {
					done++
				}
			}()
			d.run(t, eng, seen)
		})
	}
	if done < len(drives) {
		t.Logf("route coverage not checked: %d of %d drives ran whole", done, len(drives))
		return
	}
	for _, name := range seen.missing() {
		t.Errorf("route %s was not requested through package client", name)
	}
}

// routeLog records the routes that answered a request with a 2xx.
type routeLog struct {
	mux   *http.ServeMux    // the route table's patterns, to name a request's route
	names map[string]string // pattern → route name
	mu    sync.Mutex
	seen  map[string]bool
}

func newRouteLog() *routeLog {
	l := &routeLog{mux: http.NewServeMux(), names: map[string]string{}, seen: map[string]bool{}}
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			l.mux.Handle(p, http.NotFoundHandler())
			l.names[p] = rt.name
		}
	}
	return l
}

// wrap serves h, recording the route of each request answered with a 2xx.
func (l *routeLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(cw, r)
		if cw.code/100 != 2 {
			return
		}
		if _, pattern := l.mux.Handler(r); l.names[pattern] != "" {
			l.mu.Lock()
			l.seen[l.names[pattern]] = true
			l.mu.Unlock()
		}
	})
}

// missing lists the routes no request recorded reached.
func (l *routeLog) missing() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, rt := range routes() {
		if !l.seen[rt.name] {
			out = append(out, rt.name)
		}
	}
	return out
}

// codeWriter remembers the status written.
type codeWriter struct {
	http.ResponseWriter
	code int
}

func (w *codeWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer beneath (streamed
// answers flush through it).
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestRouteLog: the log names the route of a request by the route table,
// whatever the prefix, and records only 2xx answers.
func TestRouteLog(t *testing.T) {
	l := newRouteLog()
	h := l.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "missing") {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	for _, c := range []struct{ method, path string }{
		{"GET", "/twitter/user/42/tweets"}, {"GET", "/social/tweets/7/retweeted_by/9"}, {"GET", "/user/balance"},
		{"DELETE", "/monitors/abc"}, {"GET", "/social/list/missing"}, {"GET", "/nowhere"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(c.method, c.path, nil))
	}
	missing := l.missing()
	for _, name := range []string{"user_tweets", "retweeted_by_user", "balance", "monitor_delete"} {
		if slices.Contains(missing, name) {
			t.Errorf("%s not recorded", name)
		}
	}
	if !slices.Contains(missing, "list") || len(missing) != len(routes())-4 {
		t.Errorf("missing %v", missing)
	}
}

// testClientWalks drives every paged endpoint through package client on
// the generated network: each full walk equals the store's own keyset
// walk, and the key paid exactly what the client counted.
func testClientWalks(t *testing.T, eng engine, seen *routeLog) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	srv := httptest.NewServer(seen.wrap(e.h))
	defer srv.Close()
	key, keyID := e.key(t, plenty, 0)
	before := e.balance(t, keyID)
	c, err := client.New(srv.URL, key, client.WithBudget(plenty, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	st := e.store
	q, err := parseQuery("the -filter:replies", testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		viaClient   []string
		viaStore    []string
		leastLength int
	}{
		{"user tweets", ids(c.UserTweetsAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.UserPosts(ctx, x.UserID, false, p)
		}), 21},
		{"tweets and replies", ids(c.UserTweetsAndRepliesAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.UserPosts(ctx, x.UserID, true, p)
		}), 21},
		{"list tweets", ids(c.ListTweetsAll(ctx, x.ListID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.ListPosts(ctx, x.ListID, p)
		}), 21},
		{"thread", ids(c.ThreadAll(ctx, x.ThreadID)), storePosts(t, 30, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Thread(ctx, x.ThreadID, p)
		}), 31},
		{"mentions", ids(c.MentionsAll(ctx, x.Username)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Mentions(ctx, x.Username, p)
		}), 1},
		{"highlights", ids(c.HighlightsAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Highlights(ctx, x.UserID, p)
		}), 0},
		{"comments", ids(c.CommentsAll(ctx, x.PostID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Replies(ctx, x.PostID, p)
		}), 1},
		{"quotes", ids(c.QuotesAll(ctx, x.PostID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Quotes(ctx, x.PostID, p)
		}), 1},
		{"likes", ids(c.LikesAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Likes(ctx, x.UserID, p)
		}), 1},
		{"search", ids(c.SearchAll(ctx, "the -filter:replies", client.Latest)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Search(ctx, q, social.Latest, p)
		}), 21},
		{"search top", ids(c.SearchAll(ctx, "the -filter:replies", client.Top)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Search(ctx, q, social.Top, p)
		}), 21},
		// The pinned post leads every page after the first: the client
		// yields it once, where it first came, so only the sets compare.
		{"community tweets", sorted(ids(c.CommunityTweetsAll(ctx, x.CommunityID, client.Latest))), sorted(storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.CommunityPosts(ctx, x.CommunityID, social.Latest, p)
		})), 21},
		{"community tweets top", sorted(ids(c.CommunityTweetsAll(ctx, x.CommunityID, client.Top))), sorted(storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.CommunityPosts(ctx, x.CommunityID, social.Top, p)
		})), 21},
		{"retweeters", ids(c.RetweetersAll(ctx, x.PostID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Reposters(ctx, x.PostID, p)
		}), 1},
		{"liking users", ids(c.LikingUsersAll(ctx, x.PostID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.LikingUsers(ctx, x.PostID, p)
		}), 1},
		{"affiliates", ids(c.AffiliatesAll(ctx, x.OrganizationUserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Affiliates(ctx, x.OrganizationUserID, p)
		}), 1},
		{"verified followers", ids(c.VerifiedFollowersAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.VerifiedFollowers(ctx, x.UserID, p)
		}), 0},
		{"following", ids(c.FollowingAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Following(ctx, x.UserID, p)
		}), 1},
		{"followers", ids(c.FollowersAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Followers(ctx, x.UserID, p)
		}), 1},
		{"followers/list", ids(c.FollowersListAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Followers(ctx, x.UserID, p)
		}), 21},
		{"friends/list", ids(c.FriendsListAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Following(ctx, x.UserID, p)
		}), 1},
		{"list members", ids(c.ListMembersAll(ctx, x.ListID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.ListMembers(ctx, x.ListID, p)
		}), 1},
		{"search users", ids(c.SearchUsersAll(ctx, x.Username[:2])), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.SearchUsers(ctx, x.Username[:2], p)
		}), 1},
		{"community members", ids(c.CommunityMembersAll(ctx, x.CommunityID)), storeKeys(t, 20, func(p social.PageReq) (social.Page[social.Member], error) {
			return st.CommunityMembers(ctx, x.CommunityID, p)
		}, func(m social.Member) int64 { return m.User.ID }), 1},
		{"user lists", ids(c.UserListsAll(ctx, x.ListsUserID)), storeKeys(t, 100, func(p social.PageReq) (social.Page[social.List], error) {
			return st.UserLists(ctx, x.ListsUserID, p)
		}, func(l social.List) int64 { return l.ID }), 101},
	} {
		if !slices.Equal(tc.viaClient, tc.viaStore) || len(tc.viaClient) < tc.leastLength {
			t.Errorf("%s: client walked %d items, store %d (want at least %d)", tc.name, len(tc.viaClient),
				len(tc.viaStore), tc.leastLength)
		}
	}
	if paid := before - e.balance(t, keyID); paid != c.Spent() || paid == 0 {
		t.Errorf("the key paid %d, the client counted %d", paid, c.Spent())
	}
}

// sorted is ids in order, for walks whose order differs by design.
func sorted(ids []string) []string {
	slices.Sort(ids)
	return ids
}

// idOf is the id a client value carries as a string.
type idOf interface {
	client.Tweet | client.User | client.Member | client.List
}

func ids[T idOf](seq iter.Seq2[T, error]) []string {
	var out []string
	for v, err := range seq {
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		switch x := any(v).(type) {
		case client.Tweet:
			out = append(out, x.IDStr)
		case client.User:
			out = append(out, x.IDStr)
		case client.Member:
			out = append(out, x.IDStr)
		case client.List:
			out = append(out, x.IDStr)
		}
	}
	return out
}

// storeKeys walks a store pager to its end and lists the items' ids.
func storeKeys[T any](t *testing.T, size int, fetch func(social.PageReq) (social.Page[T], error), key func(T) int64) []string {
	t.Helper()
	var out []string
	req := social.PageReq{Limit: size}
	for {
		p, err := fetch(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			out = append(out, strconv.FormatInt(key(it), 10))
		}
		if p.Next == nil {
			return out
		}
		req.After = p.Next
	}
}

func storePosts(t *testing.T, size int, fetch func(social.PageReq) (social.Page[social.Post], error)) []string {
	return storeKeys(t, size, fetch, func(p social.Post) int64 { return p.ID })
}

func storeUsers(t *testing.T, fetch func(social.PageReq) (social.Page[social.User], error)) []string {
	return storeKeys(t, 20, fetch, func(u social.User) int64 { return u.ID })
}

// testClientObjects calls every single-object and batch endpoint through
// package client on the generated network, under both prefixes, and
// compares with the store.
func testClientObjects(t *testing.T, eng engine, seen *routeLog) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	srv := httptest.NewServer(seen.wrap(e.h))
	defer srv.Close()
	key, _ := e.key(t, plenty, 0)
	for _, prefix := range prefixes {
		c, err := client.New(srv.URL, key, client.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		check := func(what string, ok bool, err error) {
			t.Helper()
			if err != nil || !ok {
				t.Errorf("%s %s: ok %v, err %v", prefix, what, ok, err)
			}
		}
		u, err := c.User(ctx, x.Username)
		check("user by name", u.ID != 0 && u.ScreenName == x.Username, err)
		u2, err := c.UserByID(ctx, u.ID)
		check("user by id", u2.IDStr == u.IDStr && u2.ScreenName == u.ScreenName && u2.FollowersCount == u.FollowersCount, err)
		us, err := c.UsersByIDs(ctx, []int64{u.ID, x.UserID})
		check("users by ids", len(us) >= 1 && us[0].ID == u.ID, err)
		us, err = c.UsersByUsernames(ctx, []string{x.Username})
		check("users by usernames", len(us) == 1 && us[0].IDStr == u.IDStr, err)
		tw, err := c.Tweet(ctx, x.PostID)
		check("tweet", tw.ID == x.PostID && tw.User != nil, err)
		tw2, err := c.StatusesShow(ctx, x.PostID)
		check("statuses/show", tw2.ID == tw.ID && tw2.FullText == tw.FullText, err)
		tws, err := c.TweetsByIDs(ctx, []int64{x.PostID, x.ThreadID})
		check("tweets by ids", len(tws) == 2 && tws[0].ID == x.PostID, err)
		l, err := c.List(ctx, x.ListID)
		check("list", l.IDStr == strconv.FormatInt(x.ListID, 10) && l.OwnerID() != 0, err)
		f, err := c.IsFollowing(ctx, x.UserID, x.UserID)
		check("following check", f.Status == "success" && !f.IsFollowing, err)
		rt, err := c.Retweeted(ctx, x.PostID, x.UserID)
		check("retweeted check", rt.Status == "success" && rt.TargetTweetID == strconv.FormatInt(x.PostID, 10), err)
		cm, err := c.Commented(ctx, x.PostID, x.UserID)
		check("commented check", cm.Status == "success" && cm.IsCommented == (len(cm.CommentIDs) > 0), err)
		fl, err := c.FollowersList(ctx, x.UserID, "")
		check("followers/list", len(fl.Items) > 0, err)
		fr, err := c.FriendsList(ctx, x.UserID, "")
		check("friends/list", len(fr.Items) > 0, err)
		bio, err := c.ExtendedBio(ctx, x.ExtendedBioUsername)
		stored, serr := e.store.UserByScreenName(ctx, x.ExtendedBioUsername)
		check("extended bio", serr == nil && stored.ExtendedBio != "" && bio.Text() == stored.ExtendedBio, err)
		b, err := c.Balance(ctx)
		m, merr := b.Micros()
		check("balance", merr == nil && m > 0, err)
		sp, err := c.Space(ctx, x.SpaceID)
		want, serr := e.store.Space(ctx, x.SpaceID)
		check("space", serr == nil && sp.ID == want.ID && sp.Title == want.Title && sp.State == want.State &&
			sp.Creator != nil && sp.Creator.ID == want.CreatorID && len(sp.Participants.Speakers) == len(want.Speakers) &&
			sp.Participants.Total == len(want.Admins)+len(want.Speakers) && sp.TotalLiveListeners == want.Listeners, err)
	}
}

// testClientResearch calls the research endpoints through package client
// on the generated network: counts and top values equal the store's,
// exports hold the store's matches in order, a network the store's graph;
// the key paid what the client counted, and a truncated export fails to
// read rather than ending early.
func testClientResearch(t *testing.T, eng engine, seen *routeLog) {
	e, _ := genEnv(t, eng)
	srv := httptest.NewServer(seen.wrap(e.h))
	defer srv.Close()
	ctx := t.Context()
	const text = "the -filter:replies"
	q, err := parseQuery(text, testNow)
	if err != nil {
		t.Fatal(err)
	}
	// c keeps a budget; free (another key) has none, for what a budget
	// refuses: top values by period and an export without a limit.
	key, keyID := e.key(t, plenty, 0)
	c, err := client.New(srv.URL, key, client.WithPrefix("/social"), client.WithBudget(plenty, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	freeKey, freeID := e.key(t, plenty, 0)
	free, err := client.New(srv.URL, freeKey)
	if err != nil {
		t.Fatal(err)
	}
	freeItems := 0

	for _, g := range []client.Granularity{client.Day, client.Hour} {
		got, err := c.Counts(ctx, text, g)
		if err != nil {
			t.Fatal(err)
		}
		sg, _ := social.ParseGranularity(string(g))
		buckets, err := e.store.SearchCounts(ctx, q, sg)
		if err != nil {
			t.Fatal(err)
		}
		want, total := map[int64]int64{}, int64(0)
		for _, b := range buckets {
			want[b.Start.UnixMicro()] += b.Count
			total += b.Count
		}
		var sum int64
		for i, p := range got.Data {
			if p.TweetCount != want[p.Start.UnixMicro()] || p.End.Sub(p.Start.Time) != sg.Duration() ||
				(i > 0 && !got.Data[i-1].End.Equal(p.Start.Time)) {
				t.Fatalf("counts by %s: period %d %+v, store %d", g, i, p, want[p.Start.UnixMicro()])
			}
			sum += p.TweetCount
		}
		if sum != total || got.Meta.TotalTweetCount != total || total == 0 || got.Meta.Granularity != g {
			t.Errorf("counts by %s: %d in periods, meta %+v, store %d", g, sum, got.Meta, total)
		}
	}
	if none, err := c.Counts(ctx, "zzqxv", client.Day); err != nil || none.Meta.TotalTweetCount != 0 {
		t.Errorf("counts of nothing: %+v %v", none, err)
	}

	for _, f := range []client.TopField{client.TopHashtags, client.TopAuthors} {
		for _, g := range []client.Granularity{"", client.Day} {
			via := c
			if g != "" {
				via = free
			}
			got, err := via.TopValues(ctx, client.TopRequest{Query: text, Field: f, Limit: 7, Granularity: g})
			if err != nil {
				t.Fatal(err)
			}
			sg := social.NoGranularity
			if g != "" {
				sg, _ = social.ParseGranularity(string(g))
				freeItems += got.Len()
			}
			periods, err := e.store.SearchTop(ctx, q, social.TopField(f), 7, sg)
			if err != nil {
				t.Fatal(err)
			}
			gotPeriods := got.Periods
			if g == "" {
				gotPeriods = []client.TopPeriod{{Values: got.Values}}
			}
			if len(gotPeriods) != len(periods) || got.Len() == 0 || got.Field != f {
				t.Fatalf("top %s by %q: %d periods, store %d", f, g, len(gotPeriods), len(periods))
			}
			for i, p := range periods {
				if g != "" && !gotPeriods[i].Start.Equal(p.Start) {
					t.Errorf("top %s by %q: period %d starts %v, store %v", f, g, i, gotPeriods[i].Start, p.Start)
				}
				if len(gotPeriods[i].Values) != len(p.Values) {
					t.Fatalf("top %s by %q: period %d holds %d values, store %d", f, g, i, len(gotPeriods[i].Values), len(p.Values))
				}
				for j, v := range p.Values {
					gv := gotPeriods[i].Values[j]
					if gv.Count != v.Count || gv.UserID() != v.UserID || gv.Value != v.Value {
						t.Fatalf("top %s by %q: period %d value %d %+v, store %+v", f, g, i, j, gv, v)
					}
				}
			}
		}
	}

	var walked []string
	if err := e.store.SearchWalk(ctx, q, 0, 1000, func(ps []social.Post) error {
		for _, p := range ps {
			walked = append(walked, strconv.FormatInt(p.ID, 10))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	exported := ids(free.ExportTweets(ctx, text, 0))
	freeItems += len(exported)
	if !slices.Equal(exported, walked) || len(walked) <= export.ChunkSize {
		t.Errorf("export: %d posts, store %d (want more than a chunk)", len(exported), len(walked))
	}
	st, err := c.Export(ctx, client.ExportRequest{Query: text, Format: client.ExportCSV, Limit: 25})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(st).ReadAll()
	st.Close()
	if n, ok := st.Items(); err != nil || len(rows) != 26 || rows[1][0] != walked[0] || rows[25][0] != walked[24] ||
		n != 25 || !ok || st.Filename != "roost-export.csv" {
		t.Errorf("csv export: %d rows, %d items (%v), file %q: %v", len(rows), n, ok, st.Filename, err)
	}

	g, err := graph.Build(ctx, e.store, q, text, graph.Options{Kinds: []graph.Kind{graph.Reply, graph.Mention}, MaxNodes: 40})
	if err != nil {
		t.Fatal(err)
	}
	st, err = c.Network(ctx, client.NetworkRequest{Query: text, Edges: []client.EdgeKind{client.EdgeReply, client.EdgeMention},
		Format: client.NetworkGEXF, MaxNodes: 40})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []struct{} `xml:"graph>nodes>node"`
		Edges []struct{} `xml:"graph>edges>edge"`
	}
	err = xml.NewDecoder(st).Decode(&doc)
	if err == nil {
		_, err = io.Copy(io.Discard, st)
	}
	st.Close()
	if n, ok := st.Items(); err != nil || len(doc.Nodes) != len(g.Nodes) || len(doc.Edges) != len(g.Edges) ||
		len(doc.Edges) == 0 || !ok || n != int64(g.Len()) {
		t.Errorf("network: %d nodes, %d edges, %d items (%v); store %d, %d: %v", len(doc.Nodes), len(doc.Edges), n, ok,
			len(g.Nodes), len(g.Edges), err)
	}

	if paid := plenty - e.balance(t, keyID); paid != c.Spent() || paid == 0 {
		t.Errorf("the key paid %d, the client counted %d", paid, c.Spent())
	}
	if paid := plenty - e.balance(t, freeID); paid != int64(freeItems)*billing.DefaultPrice {
		t.Errorf("the second key paid %d for %d items", paid, freeItems)
	}

	// Credit for a chunk and a half: the connection is cut after the
	// first chunk, and reading the export fails.
	short, _ := e.key(t, int64(export.ChunkSize*3/2)*billing.DefaultPrice, 0)
	sc, err := client.New(srv.URL, short)
	if err != nil {
		t.Fatal(err)
	}
	st, err = sc.Export(ctx, client.ExportRequest{Query: text, Format: client.ExportIDs})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(st)
	st.Close()
	if _, ok := st.Items(); err == nil || ok || len(strings.Fields(string(body))) != export.ChunkSize {
		t.Errorf("cut export: %d ids, counted %v, error %v", len(strings.Fields(string(body))), ok, err)
	}
}

// testClientMonitors manages monitors and the default webhook through
// package client on a small network, comparing each answer with the
// store: made (each kind), read with an event delivered, listed by the
// iterator over two pages, changed and deleted; another key gets 404 for
// them and lists none. Monitors cost nothing.
func testClientMonitors(t *testing.T, eng engine, seen *routeLog) {
	e, svc := monitorEnv(t, eng, monitor.Options{})
	srv := httptest.NewServer(seen.wrap(e.h))
	defer srv.Close()
	rc := newReceiver(t)
	ctx := t.Context()
	store := e.monitors
	key, keyID := e.key(t, plenty, 0)
	c, err := client.New(srv.URL, key, client.WithBudget(plenty, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	otherKey, otherID := e.key(t, plenty, 0)
	other, err := client.New(srv.URL, otherKey)
	if err != nil {
		t.Fatal(err)
	}

	hook := rc.srv.URL + "/default"
	wh, err := c.SetWebhook(ctx, &hook)
	stored, serr := store.DefaultWebhook(ctx, keyID)
	if err != nil || serr != nil || wh.Status != "success" || wh.SigningSecret == "" || wh.SigningSecret != stored.Secret ||
		stored.URL == nil || *stored.URL != hook {
		t.Fatalf("webhook: %+v %v; stored %+v %v", wh, err, stored, serr)
	}

	own := rc.srv.URL + "/own"
	made := map[string]client.Monitor{}
	for _, mk := range []struct {
		name   string
		create func() (client.Monitor, error)
		kind   string
		user   int64
		hook   *string
	}{
		{"user tweets", func() (client.Monitor, error) {
			return c.CreateUserTweetsMonitor(ctx, client.UserMonitorRequest{UserID: mAlice})
		}, client.MonitorUserTweets, mAlice, nil},
		{"user following", func() (client.Monitor, error) {
			return c.CreateUserFollowingMonitor(ctx, client.UserMonitorRequest{UserScreenName: "bob", WebhookURL: &own})
		}, client.MonitorUserFollowing, mBob, &own},
		{"user profile", func() (client.Monitor, error) {
			return c.CreateUserProfileMonitor(ctx, client.UserMonitorRequest{UserID: mCarol})
		}, client.MonitorUserProfile, mCarol, nil},
		{"search", func() (client.Monitor, error) {
			return c.CreateSearchMonitor(ctx, client.SearchMonitorRequest{Query: "post  of", RefreshFrequency: 60})
		}, client.MonitorSearchQuery, 0, nil},
		{"pump.fun", func() (client.Monitor, error) { return c.CreatePumpFunMonitor(ctx, &own) }, client.MonitorSearchPumpFun, 0, &own},
	} {
		m, err := mk.create()
		if err != nil {
			t.Fatalf("%s: %v", mk.name, err)
		}
		sm, err := store.Get(ctx, keyID, m.ID)
		if err != nil || sm.Kind != mk.kind || m.MonitorType != mk.kind || sm.UserID != mk.user || m.Status != sm.State ||
			!m.CreatedAt.Equal(sm.CreatedAt) || (m.WebhookURL == nil) != (mk.hook == nil) || (sm.WebhookURL == nil) != (mk.hook == nil) {
			t.Fatalf("%s: %+v, stored %+v %v", mk.name, m, sm, err)
		}
		if mk.user != 0 && m.Parameters["user_id_str"] != strconv.FormatInt(mk.user, 10) {
			t.Errorf("%s: parameters %v", mk.name, m.Parameters)
		}
		if mk.kind == client.MonitorSearchQuery && (m.RefreshFrequency != "60" || m.Parameters["query"] != "post of" || sm.Query != "post of") {
			t.Errorf("search: %+v, stored query %q", m, sm.Query)
		}
		made[mk.kind] = m
	}

	// An event: mAlice posts; it is delivered to the default webhook.
	if _, err := e.store.Write(ctx, monitorWorld(1)); err != nil {
		t.Fatal(err)
	}
	step(t, svc)
	tweets := made[client.MonitorUserTweets].ID
	d, err := c.Monitor(ctx, tweets)
	attempts, aerr := store.Attempts(ctx, tweets, 20)
	counts, cerr := store.EventCounts(ctx, tweets)
	if err != nil || aerr != nil || cerr != nil || d.ID != tweets || d.Events["delivered"] != 1 || d.Events["delivered"] != counts["delivered"] ||
		len(d.Deliveries) != len(attempts) || len(attempts) == 0 || d.Deliveries[0].Status != http.StatusOK ||
		d.Deliveries[0].Status != attempts[0].Status || d.Deliveries[0].EventID != monitor.EventID(attempts[0].EventID) {
		t.Fatalf("details %+v %v; stored attempts %+v %v, counts %v %v", d, err, attempts, aerr, counts, cerr)
	}

	// Past a page: 50 a page.
	for i := range 50 {
		if _, err := c.CreateSearchMonitor(ctx, client.SearchMonitorRequest{Query: "post " + strconv.Itoa(i), RefreshFrequency: 3600}); err != nil {
			t.Fatal(err)
		}
	}
	listed := map[string]bool{}
	var order []string
	for m, err := range c.MonitorsAll(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		listed[m.ID] = true
		order = append(order, m.ID)
	}
	all, total, err := store.List(ctx, keyID, 0, 1000)
	if err != nil || total != 55 || len(order) != total || len(listed) != total {
		t.Fatalf("listed %d (%d distinct), stored %d: %v", len(order), len(listed), total, err)
	}
	for i, m := range all {
		if order[i] != m.ID {
			t.Fatalf("monitor %d listed %s, stored %s", i, order[i], m.ID)
		}
	}
	if p, err := c.Monitors(ctx, 2); err != nil || p.Meta.Page != 2 || p.Meta.LastPage != 2 || p.Meta.ItemsCount != 55 || len(p.Data) != 5 {
		t.Errorf("page 2: %+v %v", p.Meta, err)
	}

	following := made[client.MonitorUserFollowing].ID
	m, err := c.SetMonitorWebhook(ctx, following, nil)
	sm, serr := store.Get(ctx, keyID, following)
	if err != nil || serr != nil || m.WebhookURL != nil || sm.WebhookURL != nil {
		t.Errorf("webhook removed: %+v %v; stored %+v %v", m, err, sm.WebhookURL, serr)
	}
	m, err = c.SetMonitorWebhook(ctx, following, &own)
	sm, serr = store.Get(ctx, keyID, following)
	if err != nil || serr != nil || m.WebhookURL == nil || *m.WebhookURL != own || sm.WebhookURL == nil || *sm.WebhookURL != own {
		t.Errorf("webhook set: %+v %v; stored %+v %v", m, err, sm.WebhookURL, serr)
	}

	// Another key sees none of them.
	notFound := func(what string, err error) {
		t.Helper()
		var ae *client.Error
		if !errors.As(err, &ae) || ae.Status != http.StatusNotFound || ae.Message != msgMonitorNotFound {
			t.Errorf("another key's %s: %v, want 404", what, err)
		}
	}
	_, err = other.Monitor(ctx, tweets)
	notFound("read", err)
	_, err = other.SetMonitorWebhook(ctx, tweets, &own)
	notFound("change", err)
	notFound("delete", other.DeleteMonitor(ctx, tweets))
	for m, err := range other.MonitorsAll(ctx) {
		t.Errorf("another key lists %+v %v", m, err)
	}

	for id := range listed {
		if err := c.DeleteMonitor(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Get(ctx, keyID, id); !errors.Is(err, social.ErrNotFound) {
			t.Fatalf("deleted %s: %v", id, err)
		}
	}
	notFound("deleted monitor", c.DeleteMonitor(ctx, tweets))
	if _, total, err := store.List(ctx, keyID, 0, 10); err != nil || total != 0 {
		t.Errorf("%d left: %v", total, err)
	}
	if wh, err := c.SetWebhook(ctx, nil); err != nil || wh.SigningSecret != stored.Secret {
		t.Errorf("webhook removed: %+v %v", wh, err)
	}
	if w, err := store.DefaultWebhook(ctx, keyID); err != nil || w.URL != nil {
		t.Errorf("stored default webhook %+v %v", w, err)
	}
	paid := plenty - e.balance(t, keyID)
	if paid != int64(len(rc.all()))*billing.DefaultPrice || c.Spent() != 0 || e.balance(t, otherID) != plenty {
		t.Errorf("paid %d for %d events, the client counted %d", paid, len(rc.all()), c.Spent())
	}
}
