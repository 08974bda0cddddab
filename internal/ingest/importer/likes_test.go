package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

const (
	exportOwner = 9100000000000000060
	likedPost   = 1753758708396994617 // 2024-02-03T12:33:54Z
	likedQuote  = 1766735742366658617 // 2024-03-10T08:00:00Z
	quotedPost  = 1726540888273858617
	favedPost   = 1785738456069058617 // 2024-05-01T18:30:00Z
)

func mustLike(t *testing.T, rec *recorder, post, user int64, at time.Time) {
	t.Helper()
	l, ok := rec.likes[[2]int64{post, user}]
	if !ok {
		t.Fatalf("no like of post %d by %d among %v", post, user, rec.likes)
	}
	if !l.CreatedAt.Equal(at) {
		t.Errorf("like of %d by %d at %v, want %v", post, user, l.CreatedAt, at)
	}
}

func TestExportLikes(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, fixture("export.zip"))
	check(t, "likes", len(rec.likes), 2)
	// The time of a like is its post's, from the snowflake; an id older
	// than snowflakes gives none.
	mustLike(t, rec, likedPost, exportOwner, time.Date(2024, 2, 3, 12, 33, 54, 0, time.UTC))
	mustLike(t, rec, 20, exportOwner, time.Time{})
	if _, ok := rec.posts[likedPost]; ok {
		t.Errorf("a liked post of unknown author was stored")
	}

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	like := write("like.js", "window.YTD.like.part0 = [ {\"like\": {\"tweetId\": \"1785738456069058617\", "+
		"\"fullText\": \"x\", \"expandedUrl\": \"https://twitter.com/i/web/status/1785738456069058617\"}},\n"+
		"{\"like\": {\"fullText\": \"no id\"}} ]")
	if b, _ := os.ReadFile(like); mustDetect(t, b) != FormatArchive {
		t.Errorf("like.js not detected as an export")
	}

	// Alone, like.js names no liker: its likes are skipped, and the
	// summary says how to name one.
	rec = newRecorder()
	sum := importInto(t, rec, Options{}, like)
	check(t, "likes without a liker", len(rec.likes), 0)
	check(t, "skipped", sum.SkipReasons[errNoLiker], 1)
	check(t, "malformed", sum.SkipReasons["malformed"], 1)
	if !strings.Contains(sum.String(), "--likes-of") {
		t.Errorf("no note on naming the liker:\n%s", sum)
	}
	rec = newRecorder()
	importInto(t, rec, Options{LikesOf: 77}, like)
	mustLike(t, rec, favedPost, 77, time.Date(2024, 5, 1, 18, 30, 0, 0, time.UTC))

	// With account.js beside it, the account is the liker (and stored).
	write("account.js", `window.YTD.account.part0 = [ {"account": {"accountId": "55", "username": "me", "accountDisplayName": "Me"}} ]`)
	rec = newRecorder()
	importInto(t, rec, Options{LikesOf: 77}, like)
	mustLike(t, rec, favedPost, 55, time.Date(2024, 5, 1, 18, 30, 0, 0, time.UTC))
	check(t, "likes", len(rec.likes), 1)
	check(t, "liker", mustUser(t, rec, 55).ScreenName, "me")
}

func mustDetect(t *testing.T, b []byte) string {
	t.Helper()
	f, err := Detect(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGraphQLFavoriters(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{LikersOf: favedPost}, fixture("graphql_favoriters.json"))
	at := time.Date(2024, 5, 1, 18, 30, 0, 0, time.UTC)
	mustLike(t, rec, favedPost, 9200000000000000011, at)
	mustLike(t, rec, favedPost, 9200000000000000012, at)
	check(t, "likes", len(rec.likes), 2)
	check(t, "liker", mustUser(t, rec, 9200000000000000012).ScreenName, "liker_two")

	rec = newRecorder()
	sum := importInto(t, rec, Options{}, fixture("graphql_favoriters.json"))
	check(t, "likes without --likers-of", len(rec.likes), 0)
	check(t, "users without --likers-of", len(rec.users), 2)
	if !strings.Contains(sum.String(), "--likers-of") {
		t.Errorf("no note on naming the post:\n%s", sum)
	}
}

func TestGraphQLLikes(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{LikesOf: 42}, fixture("graphql_likes.json"))
	check(t, "read", sum.Read, 2)
	// The timeline's entries are liked; the post one of them quotes is
	// stored, not liked.
	mustLike(t, rec, likedPost, 42, time.Date(2024, 2, 3, 12, 33, 54, 0, time.UTC))
	mustLike(t, rec, likedQuote, 42, time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC))
	check(t, "likes", len(rec.likes), 2)
	for _, id := range []int64{likedPost, likedQuote, quotedPost} {
		mustPost(t, rec, id)
	}
	check(t, "quote", mustPost(t, rec, likedQuote).QuotedID, int64(quotedPost))

	rec = newRecorder()
	importInto(t, rec, Options{}, fixture("graphql_likes.json"))
	check(t, "likes without --likes-of", len(rec.likes), 0)
	check(t, "posts without --likes-of", len(rec.posts), 3)
}

func TestGraphQLAudioSpace(t *testing.T) {
	b, err := os.ReadFile(fixture("graphql_audiospace.json"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "format", mustDetect(t, b), FormatGraphQL)
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, fixture("graphql_audiospace.json"))
	check(t, "read", sum.Read, 1)
	check(t, "skipped", sum.Skipped, 0)
	ms := func(v int64) time.Time { return time.UnixMilli(v).UTC() }
	want := social.Space{ID: "1jMJgLdenVjxL", CreatorID: 9200000000000000021, Title: "Weekly data chat",
		State: social.SpaceEnded, CreatedAt: ms(1714587000000), ScheduledStart: ms(1714588200000),
		StartedAt: ms(1714588260000), EndedAt: ms(1714593600000), UpdatedAt: ms(1714593601000),
		Listeners: 1234, ReplayWatched: 345, Replay: true,
		Admins:   []int64{9200000000000000021, 9200000000000000022},
		Speakers: []int64{9200000000000000023, 9200000000000000024}}
	if got := rec.spaces[want.ID]; !reflect.DeepEqual(got, want) {
		t.Errorf("space:\n%+v\nwant\n%+v", got, want)
	}
	host := mustUser(t, rec, 9200000000000000021)
	check(t, "host", host.ScreenName, "space_host")
	check(t, "host is a profile", host.Stub, false)
	check(t, "host followers", host.FollowersCount, int64(5000))
	sp := mustUser(t, rec, 9200000000000000023)
	check(t, "speaker", sp.ScreenName+" "+sp.Name, "speaker_a Speaker A")
	check(t, "speaker is a stub", sp.Stub, true)
	if _, ok := rec.users[9200000000000000025]; ok {
		t.Errorf("a listener was stored")
	}
}

func TestGraphQLAudioSpaceEdges(t *testing.T) {
	dec := decodeGraphQL(gqlRelations{})
	one := func(doc string) item {
		t.Helper()
		its := dec("", []byte(doc), RecordError{File: "x"})
		if len(its) != 1 {
			t.Fatalf("%s: %d records", doc, len(its))
		}
		return its[0]
	}
	// No creator result: the first admin hosts. A roster that lists the
	// host later gets the host moved first.
	it := one(`{"data":{"audioSpace":{"metadata":{"rest_id":"1a","state":"Running","started_at":"1714588260000"},
		"participants":{"admins":[{"user_results":{"rest_id":"7"}},{"user_results":{"rest_id":"8"}}]}}}}`)
	if sp := it.batch.Spaces; len(sp) != 1 || sp[0].CreatorID != 7 || !reflect.DeepEqual(sp[0].Admins, []int64{7, 8}) ||
		!sp[0].StartedAt.Equal(time.UnixMilli(1714588260000)) || !sp[0].EndedAt.IsZero() {
		t.Errorf("space without a creator result: %+v", sp)
	}
	it = one(`{"data":{"audioSpace":{"metadata":{"rest_id":"1b","state":"Ended",
		"creator_results":{"result":{"__typename":"User","rest_id":"9","legacy":{"screen_name":"h"}}}},
		"participants":{"admins":[{"user_results":{"rest_id":"7"}},{"user_results":{"rest_id":"9"}}]}}}}`)
	if sp := it.batch.Spaces; len(sp) != 1 || !reflect.DeepEqual(sp[0].Admins, []int64{9, 7}) {
		t.Errorf("host listed second: %+v", sp)
	}
	for _, doc := range []string{
		`{"data":{"audioSpace":{"metadata":{"state":"Ended"}}}}`,
		`{"data":{"audioSpace":{"metadata":{"rest_id":"1c","state":"Ended"}}}}`,
		`{"data":{"audioSpace":{"metadata":{"rest_id":"1d","creator_results":{"result":{"rest_id":"9"}}}}}}`,
		`{"data":{"audioSpace":{"metadata":{"rest_id":"1e","state":"Ended","created_at":"soon"}}}}`,
	} {
		if it := one(doc); it.err == nil {
			t.Errorf("%s: accepted: %+v", doc, it.batch)
		}
	}
}
