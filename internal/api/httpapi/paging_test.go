package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// withCursor is path asking for the page after cursor ("": the first).
func withCursor(path, cursor string) string {
	if cursor == "" {
		return path
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "cursor=" + url.QueryEscape(cursor)
}

// walk reads every page of path and returns the id_str of each item in
// order, failing on a repeat; pages must hold at most size items and only
// the last may have a null next_cursor. When pinned is not "", every page
// requested with a cursor must hold that item (a community's pinned post),
// which is then not counted as a repeat.
func walk(t *testing.T, e *env, key, path string, size int, pinned string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s: more than 1000 pages", path)
		}
		p := withCursor(path, cursor)
		w := e.do(call{path: p, key: key})
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", p, w.Code, w.Body)
		}
		pg := decode[page](t, w)
		items := pg.items()
		if len(items) > size {
			t.Fatalf("%s: %d items on a page, want at most %d", p, len(items), size)
		}
		hasPinned := false
		for _, raw := range items {
			var it struct {
				IDStr string `json:"id_str"`
			}
			json.Unmarshal(raw, &it)
			if pinned != "" && it.IDStr == pinned {
				hasPinned = true
				if seen[pinned] {
					continue
				}
			}
			if seen[it.IDStr] {
				t.Fatalf("%s: item %s repeated", path, it.IDStr)
			}
			seen[it.IDStr] = true
			ids = append(ids, it.IDStr)
		}
		if cursor != "" && pinned != "" && !hasPinned {
			t.Fatalf("%s: page without the pinned post %s", p, pinned)
		}
		if pg.NextCursor == nil {
			return ids
		}
		if *pg.NextCursor == "" {
			t.Fatalf("%s: empty next_cursor", p)
		}
		if len(items) == 0 {
			t.Fatalf("%s: empty page with a cursor", p)
		}
		cursor = *pg.NextCursor
	}
}

func TestPagination(t *testing.T) { eachEngine(t, testPagination) }

func testPagination(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, id := e.key(t, plenty, 0)
	before := e.balance(t, id)
	total := 0
	for _, tc := range []struct {
		path  string
		size  int
		count int
	}{
		{"/social/user/1/tweets", 20, 59}, // 101, 45 roots, 13 community posts
		{"/twitter/user/1/tweets-and-replies", 20, 60},
		{"/social/search?query=community&type=Latest", 20, 25},
		{"/social/search?query=community&type=top", 20, 25},
		{"/social/list/9/tweets", 20, 13},
	} {
		ids := walk(t, e, key, tc.path, tc.size, "")
		if tc.count != 0 && len(ids) != tc.count {
			t.Errorf("%s: %d items, want %d", tc.path, len(ids), tc.count)
		}
		total += len(ids)
		if strings.Contains(tc.path, "type=Latest") || strings.HasSuffix(tc.path, "/tweets") || strings.Contains(tc.path, "replies") {
			for i := 1; i < len(ids); i++ {
				if len(ids[i]) > len(ids[i-1]) || (len(ids[i]) == len(ids[i-1]) && ids[i] >= ids[i-1]) {
					t.Errorf("%s: %s after %s, want newest first", tc.path, ids[i], ids[i-1])
				}
			}
		}
	}
	if drop := before - e.balance(t, id); drop != int64(total)*200 {
		t.Errorf("paging %d items cost %d micro-USD, want %d", total, drop, total*200)
	}
}

// TestCommunityPinned: a page requested with a cursor starts with the
// community's pinned post, unless the page holds it already.
func TestCommunityPinned(t *testing.T) { eachEngine(t, testCommunityPinned) }

func testCommunityPinned(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	first := decode[page](t, e.do(call{path: "/social/community/7/tweets", key: key}))
	if len(first.Tweets) != 20 || first.NextCursor == nil {
		t.Fatalf("first page: %d tweets, cursor %v", len(first.Tweets), first.NextCursor)
	}
	second := decode[page](t, e.do(call{path: "/social/community/7/tweets?cursor=" + *first.NextCursor, key: key}))
	var got []string
	for _, raw := range second.Tweets {
		var it struct {
			IDStr string `json:"id_str"`
		}
		json.Unmarshal(raw, &it)
		got = append(got, it.IDStr)
	}
	want := []string{"310", "304", "303", "302", "301", "300"}
	if strings.Join(got, ",") != strings.Join(want, ",") || second.NextCursor != nil {
		t.Errorf("second page %v next %v, want %v and null", got, second.NextCursor, want)
	}
	for _, order := range []string{"Latest", "Top"} {
		if ids := walk(t, e, key, "/social/community/7/tweets?type="+order, 21, "310"); len(ids) != 25 {
			t.Errorf("%s walk: %d distinct items, want 25", order, len(ids))
		}
	}
}

// TestForeignCursors: a cursor is valid only where it was issued.
func TestForeignCursors(t *testing.T) { eachEngine(t, testForeignCursors) }

func testForeignCursors(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	next := func(path string) string {
		p := decode[page](t, e.do(call{path: path, key: key}))
		if p.NextCursor == nil {
			t.Fatalf("%s: no next cursor", path)
		}
		return *p.NextCursor
	}
	c := next("/social/user/1/tweets")
	s := next("/social/search?query=community")
	ct := next("/social/community/7/tweets")
	for _, path := range []string{
		"/social/user/1/tweets-and-replies?cursor=" + c,
		"/social/user/4/tweets?cursor=" + c,
		"/social/user/1/highlights?cursor=" + c,
		"/social/search?query=community&cursor=" + c,
		"/social/search?query=post&cursor=" + s,
		"/social/search?query=community&type=Top&cursor=" + s,
		"/social/community/7/tweets?type=Top&cursor=" + ct,
		"/social/community/7/members?cursor=" + ct,
		"/social/user/1/tweets?cursor=" + c[:len(c)-1],
		"/social/user/1/tweets?cursor=" + c + "A",
		"/social/user/1/tweets?cursor=" + strings.ToUpper(c),
	} {
		w := e.do(call{path: path, key: key})
		if w.Code != 422 || !strings.Contains(w.Body.String(), `"message":"Invalid cursor"`) {
			t.Errorf("%s: %d %s, want 422 Invalid cursor", path, w.Code, w.Body)
		}
	}
	// The same cursor where it belongs: raw, URL-encoded twice, padded, and
	// with the same query written with other spacing, /twitter for /social.
	for _, path := range []string{
		"/social/user/1/tweets?cursor=" + c,
		"/twitter/user/1/tweets?cursor=" + url.QueryEscape(url.QueryEscape(c+"=")),
		"/social/search?query=%20community%20&type=latest&cursor=" + s,
		"/social/user/1/tweets?cursor=",
	} {
		if w := e.do(call{path: path, key: key}); w.Code != 200 {
			t.Errorf("%s: %d %s", path, w.Code, w.Body)
		}
	}
}

func TestThreadFromReply(t *testing.T) { eachEngine(t, testThreadFromReply) }

func testThreadFromReply(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	root := e.do(call{path: "/social/thread/101", key: key}).Body.String()
	reply := e.do(call{path: "/social/thread/103", key: key}).Body.String()
	if root != reply {
		t.Errorf("thread of a reply differs from the thread of its root")
	}
}
