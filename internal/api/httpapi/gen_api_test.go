package httpapi

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
)

// TestGeneratedWalks pages every paged endpoint to its end over the
// generated network: no repeats, bounded pages, cursors until the end.
func TestGeneratedWalks(t *testing.T) { eachEngine(t, testGeneratedWalks) }

func testGeneratedWalks(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	t.Logf("generated %d users, %d posts in %v; examples %+v", sum.Users, sum.Posts, generated[eng.name].setup, x)
	key, id := e.key(t, plenty, 0)
	before := e.balance(t, id)
	total := 0
	for _, tc := range []struct {
		path string
		size int
		min  int // at least this many items
	}{
		{fmt.Sprintf("/social/user/%d/tweets", x.UserID), 20, 21},
		{fmt.Sprintf("/social/user/%d/tweets-and-replies", x.UserID), 20, 21},
		{fmt.Sprintf("/social/user/%d/highlights", x.UserID), 20, 0},
		{fmt.Sprintf("/social/user/%s/mentions", x.Username), 20, 1},
		{fmt.Sprintf("/social/user/%d/following", x.UserID), 20, 1},
		{fmt.Sprintf("/social/user/%d/verified-followers", x.UserID), 20, 0},
		{fmt.Sprintf("/social/user/%d/lists", x.ListsUserID), 100, 101},
		{fmt.Sprintf("/social/user/%d/affiliates", x.OrganizationUserID), 20, 1},
		{fmt.Sprintf("/social/thread/%d", x.ThreadID), 30, 31},
		{fmt.Sprintf("/social/tweets/%d/retweeted_by", x.PostID), 20, 1},
		{fmt.Sprintf("/social/list/%d/tweets", x.ListID), 20, 21},
		{fmt.Sprintf("/social/list/%d/members", x.ListID), 20, 1},
		{fmt.Sprintf("/social/community/%d/members", x.CommunityID), 20, 1},
		{"/social/search?query=" + x.Username, 20, 1},
		{"/social/search?query=from:" + x.Username + "&type=Top", 20, 1},
	} {
		ids := walk(t, e, key, tc.path, tc.size, "")
		if len(ids) < tc.min {
			t.Errorf("%s: %d items, want at least %d", tc.path, len(ids), tc.min)
		}
		total += len(ids)
	}
	if drop := before - e.balance(t, id); drop != int64(total)*billing.DefaultPrice {
		t.Errorf("walking %d items cost %d, want %d", total, drop, int64(total)*billing.DefaultPrice)
	}
}

func TestGeneratedSpecifics(t *testing.T) { eachEngine(t, testGeneratedSpecifics) }

func testGeneratedSpecifics(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	key, _ := e.key(t, plenty, 0)
	if w := e.do(call{path: fmt.Sprintf("/social/user/%d/tweets", x.ProtectedUserID), key: key}); w.Code != 403 {
		t.Errorf("protected user timeline: %d %s", w.Code, w.Body)
	}
	// A shadow-banned author: from: finds nothing, the timeline still shows posts.
	w := e.do(call{path: "/social/search?query=from:" + x.ShadowBannedUsername, key: key})
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"next_cursor":null,"tweets":[]}` {
		t.Errorf("from:%s: %d %.200s, want an empty page", x.ShadowBannedUsername, w.Code, w.Body)
	}
	users := decode[struct {
		Users []struct {
			ID int64 `json:"id"`
		} `json:"users"`
	}](t, e.do(call{method: "POST", path: "/social/users-by-usernames", key: key,
		body: `{"usernames":["` + x.ShadowBannedUsername + `"]}`}))
	if len(users.Users) != 1 {
		t.Fatalf("shadow-banned user not found by name")
	}
	p := decode[page](t, e.do(call{path: fmt.Sprintf("/social/user/%d/tweets-and-replies", users.Users[0].ID), key: key}))
	if len(p.Tweets) == 0 {
		t.Errorf("shadow-banned user's timeline is empty")
	}
	// A query that cannot be parsed is 422 with the position.
	w = e.do(call{path: "/social/search?query=%28unclosed", key: key})
	if w.Code != 422 || !strings.Contains(w.Body.String(), `"query":["at position`) {
		t.Errorf("unparsable query: %d %s", w.Code, w.Body)
	}
}

func BenchmarkTimelinePage(b *testing.B) { eachEngineB(b, benchTimelinePage) }

func benchTimelinePage(b *testing.B, eng engine) {
	e, sum := genEnv(b, eng)
	key, _ := e.key(b, plenty*1000, 0)
	benchPath(b, e, key, "/social/user/"+strconv.FormatInt(sum.Examples.UserID, 10)+"/tweets")
}

func BenchmarkSearchPage(b *testing.B) { eachEngineB(b, benchSearchPage) }

func benchSearchPage(b *testing.B, eng engine) {
	e, sum := genEnv(b, eng)
	key, _ := e.key(b, plenty*1000, 0)
	benchPath(b, e, key, "/social/search?query=from:"+sum.Examples.Username)
}

func BenchmarkSearchWordPage(b *testing.B) { eachEngineB(b, benchSearchWordPage) }

func benchSearchWordPage(b *testing.B, eng engine) {
	e, _ := genEnv(b, eng)
	key, _ := e.key(b, plenty*1000, 0)
	benchPath(b, e, key, "/social/search?query=the")
}

func benchPath(b *testing.B, e *env, key, path string) {
	b.Helper()
	if w := e.do(call{path: path, key: key}); w.Code != 200 {
		b.Fatalf("%s: %d %s", path, w.Code, w.Body)
	}
	b.ReportAllocs()
	var bytes int64
	for b.Loop() {
		w := e.do(call{path: path, key: key})
		if w.Code != 200 {
			b.Fatalf("%d", w.Code)
		}
		bytes = int64(w.Body.Len())
	}
	b.SetBytes(bytes)
}

// BenchmarkTimelinePageParallel is the timeline page under concurrent
// clients, where debits share commits.
func BenchmarkTimelinePageParallel(b *testing.B) { eachEngineB(b, benchTimelinePageParallel) }

func benchTimelinePageParallel(b *testing.B, eng engine) {
	e, sum := genEnv(b, eng)
	key, _ := e.key(b, plenty*1000, 0)
	path := "/social/user/" + strconv.FormatInt(sum.Examples.UserID, 10) + "/tweets"
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if w := e.do(call{path: path, key: key}); w.Code != 200 {
				b.Errorf("%d", w.Code)
				return
			}
		}
	})
}

// BenchmarkShapeTimelinePage is this package's own share of a timeline
// page: shaping 20 hydrated posts and encoding them.
func BenchmarkShapeTimelinePage(b *testing.B) { eachEngineB(b, benchShapeTimelinePage) }

func benchShapeTimelinePage(b *testing.B, eng engine) {
	benchShapePosts(b, eng, func(e *env, x gen.Examples) (social.Page[social.Post], error) {
		return e.store.UserPosts(b.Context(), x.UserID, false, social.PageReq{Limit: pageSize})
	}, func(next *string, views []social.PostView) any {
		return wire.TweetsPage[wire.CompactPost]{NextCursor: next, Tweets: shapePosts(views, newCompactPost)}
	})
}

// BenchmarkShapeThreadPage shapes and encodes a page of 30 posts in the
// full shape, as a thread answers them.
func BenchmarkShapeThreadPage(b *testing.B) { eachEngineB(b, benchShapeThreadPage) }

func benchShapeThreadPage(b *testing.B, eng engine) {
	benchShapePosts(b, eng, func(e *env, x gen.Examples) (social.Page[social.Post], error) {
		return e.store.Thread(b.Context(), x.ThreadID, social.PageReq{Limit: threadPageSize})
	}, func(next *string, views []social.PostView) any {
		return wire.TweetsPage[wire.FullPost]{NextCursor: next, Tweets: fullPosts(views)}
	})
}

// benchShapePosts times shaping the hydrated posts of the generated
// network's page that read gives into the page that shape makes.
func benchShapePosts(b *testing.B, eng engine, read func(*env, gen.Examples) (social.Page[social.Post], error),
	shape func(next *string, views []social.PostView) any) {
	e, sum := genEnv(b, eng)
	page, err := read(e, sum.Examples)
	if err != nil {
		b.Fatal(err)
	}
	views, err := social.Hydrate(b.Context(), e.store, page.Items)
	if err != nil {
		b.Fatal(err)
	}
	benchShape(b, func(next *string) any { return shape(next, views) })
}

// BenchmarkShapeUsersPage shapes and encodes a page of 20 profiles, as
// the followers of a user answer them.
func BenchmarkShapeUsersPage(b *testing.B) { eachEngineB(b, benchShapeUsersPage) }

func benchShapeUsersPage(b *testing.B, eng engine) {
	e, sum := genEnv(b, eng)
	page, err := e.store.Followers(b.Context(), sum.Examples.UserID, social.PageReq{Limit: pageSize})
	if err != nil {
		b.Fatal(err)
	}
	benchShape(b, func(next *string) any {
		return wire.UsersPage[wire.Profile]{NextCursor: next, Users: newProfiles(page.Items)}
	})
}

// benchShape times shaping a page (with a next cursor) and encoding it
// into a pooled buffer, as the handler does.
func benchShape(b *testing.B, page func(next *string) any) {
	var pool bufferPool
	next := "AeIE4gS433Yvu7vqOQ"
	b.ReportAllocs()
	for b.Loop() {
		buf := pool.get()
		if err := encodeJSON(buf, page(&next)); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
		pool.put(buf)
	}
}
