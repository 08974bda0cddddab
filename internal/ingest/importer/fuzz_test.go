package importer

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// seeds are small inputs of every format, plus the fixtures.
func seeds(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `[{"tweet":{}}]`, `{"statuses":[{}]}`, `{"data":[{"id":"1"}]}`,
		`{"data":{"user":{"result":{"__typename":"User","rest_id":"1","timeline":{}}}}}`,
		`{"__typename":"TweetWithVisibilityResults","tweet":{"__typename":"TweetWithVisibilityResults","tweet":{}}}`,
		`{"created_at":"Mon Jan 02 15:04:05 +0000 2006","id_str":"1","full_text":"@a #b $C http://x.co","user":{"id_str":"2","screen_name":"u"},"retweeted_status":{"id_str":"3"}}`,
		`{"tweet_created_at":"2024-01-01T00:00:00Z","id_str":"1","user":{"id_str":"2"},"entities":{"hashtags":[{"text":"x","indices":[1]}]}}`,
		`{"next_cursor":"x","lists":[{"id_str":"1","user_results":{"result":{"rest_id":"2"}}}]}`,
		"window.YTD.tweets.part0 = [{\"tweet\":{\"id_str\":\"1\"}}]",
		"window.YTD.like.part0 = [{\"like\":{\"tweetId\":\"1785738456069058617\"}},{\"like\":{}}]",
		`{"data":{"audioSpace":{"metadata":{"rest_id":"1a","state":"Ended","ended_at":"17","creator_results":{"result":{"rest_id":"2"}}},` +
			`"participants":{"admins":[{"user_results":{"rest_id":"3"}}],"speakers":[{}]}}}}`,
		`{"entryId":"tweet-1","content":{"tweet_results":{"result":{"__typename":"Tweet","rest_id":"1","legacy":{}}}}}`,
		`{"id_str":"99999999999999999999"}`, `{"id_str":1e400}`, `[[[[[[[[[[[[]]]]]]]]]]]]`,
		`{"created_at":"Mon Jan 02 15:04:05 +0000 2006","id_str":"1","full_text":"a\u0000b","user":{"id_str":"2","screen_name":"u\u0000","description":"\ud800"}}`,
		"{\"created_at\":\"Mon Jan 02 15:04:05 +0000 2006\",\"id_str\":\"1\",\"full_text\":\"a\x00b\xff\",\"user\":{\"id_str\":\"2\"}}\n{}\n",
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"v1_array.json", "v1_search.json", "api_page.json", "v2_note.jsonl",
		"graphql_audiospace.json", "graphql_favoriters.json"} {
		if b, err := os.ReadFile(fixture(name)); err == nil {
			f.Add(b)
		}
	}
}

func FuzzDetect(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		format, err := Detect(b)
		if err == nil && validFormat(format) != nil {
			t.Fatalf("Detect gave unknown format %q", format)
		}
	})
}

// fuzzDecoder runs one decoder directly (not behind safeValue's recover,
// so a panic fails the target) and then through the streaming reader,
// whose records must hold only text that every store can hold (a NUL
// byte is repaired to U+FFFD).
func fuzzDecoder(f *testing.F, fn valueFunc, keys map[string]bool) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, it := range fn("", b, RecordError{File: "fuzz"}) {
			if it.err != nil && it.err.Reason == "" {
				t.Fatalf("error without a reason: %+v", it.err)
			}
		}
		st := &streamer{name: "fuzz", workers: 2, streamKeys: keys}
		n := 0
		err := st.run(context.Background(), bufio.NewReaderSize(bytes.NewReader(b), 1<<16), func(key string, raw []byte, at RecordError) []item {
			return fn(key, raw, at)
		}, func(it item) error {
			n++
			eachString(t, reflect.ValueOf(&it.batch).Elem(), func(v reflect.Value) {
				if err := social.CheckText(v.String()); err != nil {
					t.Fatalf("a record holds %q (%v)", v.String(), err)
				}
			})
			return nil
		})
		if err != nil {
			t.Fatalf("stream error on in-memory input: %v", err)
		}
	})
}

func FuzzDecodeV1(f *testing.F) { fuzzDecoder(f, decodeV1, map[string]bool{"statuses": true}) }

func FuzzDecodeV2(f *testing.F) { fuzzDecoder(f, decodeV2, nil) }

func FuzzDecodeGraphQL(f *testing.F) {
	fuzzDecoder(f, decodeGraphQL(gqlRelations{FollowersOf: 1, LikersOf: 2, LikesOf: 3}), nil)
}

func FuzzDecodeAPI(f *testing.F) {
	fuzzDecoder(f, decodeAPI, map[string]bool{"tweets": true, "users": true, "lists": true})
}

func FuzzDecodeArchive(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		if _, err := ytdKind(br); err != nil {
			return
		}
		var rest bytes.Buffer
		_, _ = rest.ReadFrom(br)
		for _, dec := range []valueFunc{decodeExportTweet(social.User{ID: 1, ScreenName: "owner"}, noteIndex{}), decodeExportLike(1)} {
			_ = dec("", rest.Bytes(), RecordError{File: "fuzz"})
			st := &streamer{name: "fuzz"}
			if err := st.docs(context.Background(), bytes.NewReader(rest.Bytes()), dec, func(item) error { return nil }); err != nil {
				t.Fatalf("stream error on in-memory input: %v", err)
			}
		}
	})
}
