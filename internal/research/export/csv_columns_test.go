package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/social"
)

// twarcColumns is twarc-csv's DEFAULT_TWEET_COLUMNS (the release with
// impression_count and the *_username columns), less the columns roost
// never holds, in twarc-csv's order.
var twarcColumns = []string{
	"id", "conversation_id", "referenced_tweets.replied_to.id", "referenced_tweets.retweeted.id",
	"referenced_tweets.quoted.id", "author_id", "in_reply_to_user_id", "in_reply_to_username",
	"retweeted_user_id", "retweeted_username", "quoted_user_id", "quoted_username", "created_at", "text", "lang",
	"source", "public_metrics.impression_count", "public_metrics.reply_count", "public_metrics.retweet_count",
	"public_metrics.quote_count", "public_metrics.like_count",
	// reply_settings, edit_history_tweet_ids, edit_controls.*, possibly_sensitive,
	// withheld.*, entities.annotations
	"entities.cashtags", "entities.hashtags", "entities.mentions", "entities.urls",
	// context_annotations
	"attachments.media", "attachments.media_keys",
	// attachments.poll.*, attachments.poll_ids
	"author.id", "author.created_at", "author.username", "author.name", "author.description",
	// author.entities.description.*
	"author.url", "author.location", "author.pinned_tweet_id", "author.profile_image_url", "author.protected",
	"author.public_metrics.followers_count", "author.public_metrics.following_count",
	"author.public_metrics.listed_count", "author.public_metrics.tweet_count", "author.verified",
	// author.withheld.*, geo.*, matching_rules, __twarc.*
}

// TestCSVEveryColumn: every column of a CSV export of hand-made posts (an
// original with media and entities, a reply, a quote, a native repost, a
// post whose entities hold emoji and right-to-left text, text with
// newlines, quotes and commas) reads back through encoding/csv as the
// value written out here, on both engines; the header is twarc-csv's.
func TestCSVEveryColumn(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2025, 4, 2, 9, min, 5, 123e6, time.UTC) }
	views := int64(4321)
	writer := social.User{ID: 7, ScreenName: "writer", Name: "Writer, \"W\"\nline two", Description: "bio, \"quoted\"\nمرحبا 👋",
		URL: "https://writer.example/ü", Location: "Zürich, CH", CreatedAt: at(0).Add(-48 * time.Hour),
		ImageURL: "https://img.example/7.jpg", PinnedPostID: 2001, Protected: true, BlueVerified: true,
		FollowersCount: 12, FriendsCount: 34, ListedCount: 5, StatusesCount: 678}
	bee := social.User{ID: 8, ScreenName: "bee", Name: "Bee", CreatedAt: at(0).Add(-24 * time.Hour), FollowersCount: 3}
	cee := social.User{ID: 9, ScreenName: "cee", Name: "Cee", CreatedAt: at(0).Add(-24 * time.Hour)}
	source := `<a href="https://app.example" rel="nofollow">App, "One"</a>`
	original := social.Post{ID: 2000, AuthorID: 8, CreatedAt: at(1), ConversationID: 2000, Lang: "ar", Source: source,
		Text:       "صباح الخير #مرحبا @cee, see https://t.co/a1 😀 $ACME https://t.co/m1",
		Views:      &views,
		ReplyCount: 1, RetweetCount: 2, QuoteCount: 3, FavoriteCount: 4,
		Entities: social.Entities{
			Hashtags: []social.Tag{{Text: "مرحبا", Start: 11, End: 17}},
			Mentions: []social.Mention{{UserID: 9, ScreenName: "cee", Start: 18, End: 22}},
			URLs:     []social.URL{{URL: "https://t.co/a1", ExpandedURL: "https://example.com/مرحبا/😀?a=1,2", DisplayURL: "example.com/مرحبا/😀…", Start: 28, End: 43}},
			Symbols:  []social.Tag{{Text: "ACME", Start: 46, End: 51}},
			Media: []social.Media{{ID: 55, Type: social.MediaPhoto, URL: "https://t.co/m1", MediaURL: "https://pbs.example/55.jpg",
				ExpandedURL: "https://x.example/bee/status/2000/photo/1", DisplayURL: "pic.x.example/m1", Start: 52, End: 67},
				{ID: 56, Type: social.MediaVideo, URL: "https://t.co/m1", MediaURL: "https://pbs.example/56.jpg",
					ExpandedURL: "https://x.example/bee/status/2000/video/1", DisplayURL: "pic.x.example/m1", Start: 52, End: 67}},
		}}
	reply := social.Post{ID: 2001, AuthorID: 7, CreatedAt: at(2), ConversationID: 2000, Lang: "en", Source: source,
		InReplyToID: 2000, InReplyToUserID: 8, InReplyToScreenName: "bee",
		Text:       "@bee line one\nline \"two\", with commas,,\r\nand CRLF",
		Entities:   social.Entities{Mentions: []social.Mention{{UserID: 8, ScreenName: "bee", Start: 0, End: 4}}},
		ReplyCount: 0, FavoriteCount: 1}
	quote := social.Post{ID: 2002, AuthorID: 7, CreatedAt: at(3), ConversationID: 2002, Lang: "en", Source: source,
		QuotedID: 2000, Text: "$acme and $ACME2, quoted", RetweetCount: 9,
		Entities: social.Entities{Symbols: []social.Tag{{Text: "acme", Start: 0, End: 5}, {Text: "ACME2", Start: 10, End: 16}}}}
	repost := social.Post{ID: 2003, AuthorID: 7, CreatedAt: at(4), ConversationID: 2003, Lang: "ar", Source: source,
		RepostOfID: 2000, Text: "RT @bee: صباح الخير"}
	tags := social.Post{ID: 2004, AuthorID: 7, CreatedAt: at(5), ConversationID: 2004, Lang: "he", Source: source,
		Text: "#שלום #go_lang @bee @cee https://t.co/b2 \u202bעברית\u202c, \"מצוטט\"",
		Entities: social.Entities{
			Hashtags: []social.Tag{{Text: "שלום", Start: 0, End: 5}, {Text: "go_lang", Start: 6, End: 14}},
			Mentions: []social.Mention{{UserID: 8, ScreenName: "bee", Start: 15, End: 19}, {ScreenName: "cee", Start: 20, End: 24}},
			URLs:     []social.URL{{URL: "https://t.co/b2", Start: 25, End: 40}},
		}}

	row := func(p social.Post, over map[string]string) map[string]string {
		m := map[string]string{
			"id": id(p.ID), "conversation_id": id(p.ConversationID), "referenced_tweets.replied_to.id": "",
			"referenced_tweets.retweeted.id": "", "referenced_tweets.quoted.id": "", "author_id": id(p.AuthorID),
			"in_reply_to_user_id": "", "in_reply_to_username": "", "retweeted_user_id": "", "retweeted_username": "",
			"quoted_user_id": "", "quoted_username": "", "created_at": p.CreatedAt.Format("2006-01-02T15:04:05.000Z"),
			"text": p.Text, "lang": p.Lang, "source": `App, "One"`, "public_metrics.impression_count": "",
			"public_metrics.reply_count": "0", "public_metrics.retweet_count": "0", "public_metrics.quote_count": "0",
			"public_metrics.like_count": "0", "entities.cashtags": "", "entities.hashtags": "", "entities.mentions": "",
			"entities.urls": "", "attachments.media": "", "attachments.media_keys": "",
			"author.id": "7", "author.created_at": "2025-03-31T09:00:05.123Z", "author.username": "writer",
			"author.name": "Writer, \"W\"\nline two", "author.description": "bio, \"quoted\"\nمرحبا 👋",
			"author.url": "https://writer.example/ü", "author.location": "Zürich, CH", "author.pinned_tweet_id": "2001",
			"author.profile_image_url": "https://img.example/7.jpg", "author.protected": "True",
			"author.public_metrics.followers_count": "12", "author.public_metrics.following_count": "34",
			"author.public_metrics.listed_count": "5", "author.public_metrics.tweet_count": "678", "author.verified": "True",
		}
		for k, v := range over {
			if _, ok := m[k]; !ok {
				t.Fatalf("no column %s", k)
			}
			m[k] = v
		}
		return m
	}
	originalContent := map[string]string{
		"text": original.Text, "public_metrics.impression_count": "4321", "public_metrics.reply_count": "1",
		"public_metrics.retweet_count": "2", "public_metrics.quote_count": "3", "public_metrics.like_count": "4",
		"entities.cashtags": `["$ACME"]`, "entities.hashtags": `["#مرحبا"]`, "entities.mentions": `["@cee"]`,
		"entities.urls": `["https://example.com/مرحبا/😀?a=1,2"]`,
		"attachments.media": `[{"media_key":"3_55","type":"photo","url":"https://pbs.example/55.jpg"},` +
			`{"media_key":"7_56","type":"video","preview_image_url":"https://pbs.example/56.jpg"}]`,
		"attachments.media_keys": `["3_55","7_56"]`,
	}
	withOriginal := func(m map[string]string) map[string]string {
		for k, v := range originalContent {
			m[k] = v
		}
		return m
	}
	want := []map[string]string{
		withOriginal(row(original, map[string]string{"author.id": "8", "author.created_at": "2025-04-01T09:00:05.123Z",
			"author.username": "bee", "author.name": "Bee", "author.description": "", "author.url": "", "author.location": "",
			"author.pinned_tweet_id": "", "author.profile_image_url": "", "author.protected": "False",
			"author.public_metrics.followers_count": "3", "author.public_metrics.following_count": "0",
			"author.public_metrics.listed_count": "0", "author.public_metrics.tweet_count": "0", "author.verified": "False"})),
		row(reply, map[string]string{"referenced_tweets.replied_to.id": "2000", "in_reply_to_user_id": "8",
			"in_reply_to_username": "bee", "text": "@bee line one\nline \"two\", with commas,,\nand CRLF", // the reader folds \r\n
			"public_metrics.like_count": "1", "entities.mentions": `["@bee"]`}),
		row(quote, map[string]string{"referenced_tweets.quoted.id": "2000", "quoted_user_id": "8", "quoted_username": "bee",
			"public_metrics.retweet_count": "9", "entities.cashtags": `["$acme","$ACME2"]`}),
		withOriginal(row(repost, map[string]string{"referenced_tweets.retweeted.id": "2000", "retweeted_user_id": "8",
			"retweeted_username": "bee"})),
		row(tags, map[string]string{"entities.hashtags": `["#שלום","#go_lang"]`, "entities.mentions": `["@bee","@cee"]`,
			"entities.urls": `["https://t.co/b2"]`}),
	}

	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			b := &social.Batch{Users: []social.User{writer, bee, cee}, Posts: []social.Post{original, reply, quote, repost, tags}}
			if _, err := s.Write(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			out := exportAll(t, s, "include:nativeretweets", export.FormatCSV)
			rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows[0], twarcColumns) || !slices.Equal(export.CSVColumns, twarcColumns) {
				t.Fatalf("header %q, want %q", rows[0], twarcColumns)
			}
			if len(rows) != len(want)+1 {
				t.Fatalf("%d rows, want %d", len(rows)-1, len(want))
			}
			for i, w := range want {
				got := rows[i+1]
				if len(got) != len(twarcColumns) || len(w) != len(twarcColumns) {
					t.Fatalf("row %d: %d fields, %d expected values, want %d", i, len(got), len(w), len(twarcColumns))
				}
				for j, c := range twarcColumns {
					if got[j] != w[c] {
						t.Errorf("%s row %d (post %s) %s = %q, want %q", eng.name, i, w["id"], c, got[j], w[c])
					}
				}
			}
		})
	}
}

// id is a decimal id, "" for none.
func id(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
