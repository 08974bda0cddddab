package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func fixture(name string) string { return filepath.Join("testdata", name) }

func TestDetectFixtures(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"v1_array.json", FormatV1},
		{"v1_search.json", FormatV1},
		{"v1_bad.jsonl", FormatV1},
		{"api_page.json", FormatAPI},
		{"api_users.json", FormatAPI},
		{"v2_note.jsonl", FormatV2},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(fixture(tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Detect(b)
		if err != nil || got != tt.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.file, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in, want string
	}{
		{`window.YTD.tweets.part0 = [`, FormatArchive},
		{`[{"tweet": {"id_str": "1"}}]`, FormatArchive},
		{`{"data": {"search_by_raw_query": {}}}`, FormatGraphQL},
		{`{"data": {"id": "1", "text": "x"}}`, FormatV2},
		{`{"data": [{"id": "1"`, FormatV2},
		{`[{"tweet_created_at": "2024-01-01T00:00:00Z"}]`, FormatAPI},
		{`{"created_at": "x", "id_str": "1", "text": "t", "user": {}}`, FormatV1},
	} {
		got, err := Detect([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("Detect(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "hello", `{"unrelated": 1}`, `[1,2]`, "\x1f\x8b"} {
		if got, err := Detect([]byte(in)); err == nil {
			t.Errorf("Detect(%q) = %q, want an error", in, got)
		}
	}
}

func TestV1ArrayAndConversation(t *testing.T) {
	for _, file := range []string{"v1_array.json", "v1_lines.jsonl.gz"} {
		t.Run(file, func(t *testing.T) {
			rec := newRecorder()
			sum := importInto(t, rec, Options{}, fixture(file))
			check(t, "read", sum.Read, 3)
			check(t, "skipped", sum.Skipped, 0)
			root := mustPost(t, rec, 9000000000000000001)
			check(t, "text", root.Text, "Root post about #gophers &amp; $GO with @beta_user")
			check(t, "cashtag", root.Entities.Symbols[0], social.Tag{Text: "GO", Start: 31, End: 34})
			check(t, "quotes", root.QuoteCount, 4)
			// The reply to the reply inherits the root through its parent.
			check(t, "conversation of a reply", mustPost(t, rec, 9000000000000000002).ConversationID, 9000000000000000001)
			check(t, "conversation of a nested reply", mustPost(t, rec, 9000000000000000003).ConversationID, 9000000000000000001)
			check(t, "alpha profile kept over mention stubs", rec.users[9100000000000000001].Location, "")
			check(t, "alpha not a stub", rec.users[9100000000000000001].Stub, false)
		})
	}
}

func TestV1SearchEnvelopeExtractsEntities(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, fixture("v1_search.json"))
	check(t, "read", sum.Read, 1)
	p := mustPost(t, rec, 9000000000000000010)
	check(t, "retweets", p.RetweetCount, 5)
	if p.Views != nil || p.QuoteCount != 0 {
		t.Errorf("invented fields: views %v, quotes %d", p.Views, p.QuoteCount)
	}
	// No entities in the source: the extractor computes them.
	if len(p.Entities.Hashtags) != 1 || p.Entities.Hashtags[0] != (social.Tag{Text: "tagged", Start: 23, End: 30}) {
		t.Errorf("hashtags = %+v", p.Entities.Hashtags)
	}
	if len(p.Entities.Mentions) != 1 || p.Entities.Mentions[0].ScreenName != "someone" || p.Entities.Mentions[0].Start != 31 {
		t.Errorf("mentions = %+v", p.Entities.Mentions)
	}
	if len(p.Entities.URLs) != 1 || p.Entities.URLs[0].URL != "https://t.co/abcdefghij" || p.Entities.URLs[0].Start != 40 {
		t.Errorf("urls = %+v", p.Entities.URLs)
	}
}

func TestBadRecordsReportedAndSkipped(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, fixture("v1_bad.jsonl"))
	check(t, "read", sum.Read, 4)
	check(t, "skipped", sum.Skipped, 2)
	check(t, "malformed", sum.SkipReasons["malformed"], 2)
	check(t, "posts", len(rec.posts), 2)
	if len(sum.Errors) != 2 {
		t.Fatalf("errors = %+v", sum.Errors)
	}
	check(t, "first bad line", sum.Errors[0].Line, 2)
	check(t, "second bad line", sum.Errors[1].Line, 3)
	if !strings.Contains(sum.Errors[1].Reason, "created_at") || !strings.HasSuffix(sum.Errors[1].File, "v1_bad.jsonl") {
		t.Errorf("error = %+v", sum.Errors[1])
	}
	if !strings.Contains(sum.String(), "malformed 2") {
		t.Errorf("summary text:\n%s", sum)
	}
}

func TestStrictWritesNothing(t *testing.T) {
	rec := newRecorder()
	sum, err := Import(context.Background(), rec, []string{fixture("v1_array.json"), fixture("v1_bad.jsonl")}, Options{Strict: true})
	if !errors.Is(err, errStrict) || !strings.Contains(err.Error(), "v1_bad.jsonl:2") {
		t.Fatalf("err = %v", err)
	}
	if rec.writes != 0 || len(rec.posts) != 0 {
		t.Errorf("strict import wrote %d batches", rec.writes)
	}
	check(t, "errors reported", len(sum.Errors), 1)

	rec = newRecorder()
	if _, err := Import(context.Background(), rec, []string{fixture("v1_array.json")}, Options{Strict: true}); err != nil {
		t.Fatalf("strict import of good input: %v", err)
	}
	check(t, "posts after a clean strict import", len(rec.posts), 3)
}

func TestReimportIsIdempotent(t *testing.T) {
	rec := newRecorder()
	first := importInto(t, rec, Options{BatchSize: 7}, fixture("v1_array.json"), fixture("api_page.json"))
	posts, users := len(rec.posts), len(rec.users)
	second := importInto(t, rec, Options{BatchSize: 7}, fixture("v1_array.json"), fixture("api_page.json"))
	check(t, "posts", len(rec.posts), posts)
	check(t, "users", len(rec.users), users)
	check(t, "inserted the first time", first.PostsInserted, posts)
	check(t, "inserted the second time", second.PostsInserted, 0)
}

func TestExportZip(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, fixture("export.zip"))
	check(t, "read", sum.Read, 4)
	check(t, "skipped", sum.Skipped, 0)
	u := mustUser(t, rec, 9100000000000000060)
	check(t, "screen name", u.ScreenName, "owner_x")
	check(t, "name", u.Name, "Owner X")
	check(t, "bio", u.Description, "I post things")
	check(t, "location", u.Location, "Somewhere")
	check(t, "stub", u.Stub, false)
	p := mustPost(t, rec, 9000000000000000060)
	// note-tweet.js replaced the cut text, escaped, with moved indices.
	const want = "This is a long post &amp; it goes on and on with #detail past the cut and ends with @friend_y here"
	check(t, "text", p.Text, want)
	check(t, "hashtag", p.Entities.Hashtags[0], social.Tag{Text: "detail", Start: strings.Index(want, "#detail"), End: strings.Index(want, "#detail") + 7})
	check(t, "mention", p.Entities.Mentions[0].Start, strings.Index(want, "@friend_y"))
	check(t, "favorites from a string", p.FavoriteCount, 3)
	r := mustPost(t, rec, 9000000000000000061)
	check(t, "reply conversation", r.ConversationID, 9000000000000000060)
	check(t, "reply author", r.AuthorID, 9100000000000000060)
}

func TestAPIResponses(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, fixture("api_page.json"), fixture("api_users.json"))
	check(t, "skipped", sum.Skipped, 0)
	p := mustPost(t, rec, 9000000000000000030)
	check(t, "quoted", p.QuotedID, 9000000000000000031)
	check(t, "bookmarks", p.BookmarkCount, 5)
	if p.Views == nil || *p.Views != 1234 {
		t.Errorf("views = %v", p.Views)
	}
	check(t, "hashtag", p.Entities.Hashtags[0], social.Tag{Text: "again", Start: 16, End: 22})
	q := mustPost(t, rec, 9000000000000000031)
	check(t, "quoted favorites", q.FavoriteCount, 9)
	if q.Views != nil {
		t.Errorf("null views_count became %d", *q.Views)
	}
	check(t, "quoted author", rec.users[q.AuthorID].ScreenName, "zeta")
	u := mustUser(t, rec, 9100000000000000040)
	check(t, "protected", u.Protected, true)
	check(t, "listed", u.ListedCount, 3)
	check(t, "user url", u.URL, "https://eta.example")
}

func TestV2NoteTweet(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, fixture("v2_note.jsonl"))
	p := mustPost(t, rec, 9000000000000000050)
	check(t, "text", p.Text, "short cut no more: a long text with #longform at the end")
	check(t, "hashtag", p.Entities.Hashtags[0], social.Tag{Text: "longform", Start: 36, End: 45})
	check(t, "reply to", p.InReplyToID, 9000000000000000049)
	check(t, "reply to screen name", p.InReplyToScreenName, "iota")
	check(t, "conversation", p.ConversationID, 9000000000000000049)
	check(t, "author followers", rec.users[9100000000000000050].FollowersCount, 5)
	if p.Views != nil {
		t.Errorf("no impression_count, yet views = %d", *p.Views)
	}
}

func TestFormatOverride(t *testing.T) {
	rec := newRecorder()
	sum, err := Import(context.Background(), rec, []string{fixture("v1_array.json")}, Options{Format: FormatV2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped == 0 {
		t.Errorf("v1 statuses read as v2 should be malformed: %s", sum)
	}
	if _, err := Import(context.Background(), rec, nil, Options{Format: "csv"}); err == nil {
		t.Errorf("unknown format accepted")
	}
}

func TestCancelStopsBetweenBatches(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := newRecorder()
	_, err := Import(ctx, rec, []string{fixture("v1_array.json")}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	check(t, "writes after cancel", rec.writes, 0)
}
