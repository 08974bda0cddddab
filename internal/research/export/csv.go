package export

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// CSVColumns are the columns of a CSV export: twarc-csv's tweet columns
// (DocNow/twarc-csv, DEFAULT_TWEET_COLUMNS, as of the release that added
// impression_count and the three *_username columns), in its order, less
// those roost never holds: reply settings, edit history and controls,
// possibly_sensitive, withheld, annotations, context annotations, polls,
// the entities of authors' bios, geo, matching rules and twarc's own
// metadata. As twarc-csv does by default, a native repost whose original
// is stored takes the original's text, entities, media and public metrics;
// lists are JSON arrays ("#tag", "@name", "$TAG", expanded URLs, media
// objects as API v2 includes them), empty when there are none; times are
// UTC ISO 8601 with milliseconds; booleans are True or False. Every field
// is quoted as RFC 4180 requires, so text with commas, quotes or newlines
// reads back intact with any CSV reader (twarc-csv writes a newline as the
// two characters \n instead).
var CSVColumns = []string{
	"id", "conversation_id", "referenced_tweets.replied_to.id", "referenced_tweets.retweeted.id",
	"referenced_tweets.quoted.id", "author_id", "in_reply_to_user_id", "in_reply_to_username",
	"retweeted_user_id", "retweeted_username", "quoted_user_id", "quoted_username", "created_at", "text", "lang",
	"source", "public_metrics.impression_count", "public_metrics.reply_count", "public_metrics.retweet_count",
	"public_metrics.quote_count", "public_metrics.like_count", "entities.cashtags", "entities.hashtags",
	"entities.mentions", "entities.urls", "attachments.media", "attachments.media_keys", "author.id", "author.created_at",
	"author.username", "author.name", "author.description", "author.url", "author.location",
	"author.pinned_tweet_id", "author.profile_image_url", "author.protected",
	"author.public_metrics.followers_count", "author.public_metrics.following_count",
	"author.public_metrics.listed_count", "author.public_metrics.tweet_count", "author.verified",
}

// v2Time is how API v2 (and twarc-csv) writes times.
const v2Time = "2006-01-02T15:04:05.000Z"

type csvWriter struct {
	w   *csv.Writer
	row []string
}

func newCSVWriter(w io.Writer) *csvWriter {
	return &csvWriter{w: csv.NewWriter(w), row: make([]string, 0, len(CSVColumns))}
}

func (c *csvWriter) header() error { return c.w.Write(CSVColumns) }

func (c *csvWriter) flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("export csv: %w", err)
	}
	return nil
}

func (c *csvWriter) write(views []social.PostView) error {
	for i := range views {
		if err := c.w.Write(csvRow(c.row[:0], &views[i])); err != nil {
			return err
		}
	}
	return nil
}

// csvRow appends the columns of one post to row.
func csvRow(row []string, v *social.PostView) []string {
	p := &v.Post
	content := p // text, entities and metrics: the original's for a repost
	if v.RepostOf != nil {
		content = &v.RepostOf.Post
	}
	var retweetedUser, retweetedName, quotedUser, quotedName string
	if v.RepostOf != nil {
		retweetedUser, retweetedName = id(v.RepostOf.AuthorID), v.RepostOf.Author.ScreenName
	}
	if v.Quoted != nil {
		quotedUser, quotedName = id(v.Quoted.AuthorID), v.Quoted.Author.ScreenName
	}
	replyName := ""
	if p.InReplyToID != 0 {
		replyName = p.InReplyToScreenName
	}
	e := &content.Entities
	a := &v.Author
	return append(row,
		id(p.ID), id(p.ConversationID), id(p.InReplyToID), id(p.RepostOfID), id(p.QuotedID), id(p.AuthorID),
		id(p.InReplyToUserID), replyName, retweetedUser, retweetedName, quotedUser, quotedName,
		p.CreatedAt.UTC().Format(v2Time), content.Text, p.Lang, social.SourceName(p.Source),
		optCount(content.Views), count(content.ReplyCount), count(content.RetweetCount), count(content.QuoteCount),
		count(content.FavoriteCount),
		jsonList(e.Symbols, func(t social.Tag) string { return "$" + t.Text }),
		jsonList(e.Hashtags, func(t social.Tag) string { return "#" + t.Text }),
		jsonList(e.Mentions, func(m social.Mention) string { return "@" + m.ScreenName }),
		jsonList(e.URLs, func(u social.URL) string { return cmpOr(u.ExpandedURL, u.URL) }),
		jsonList(e.Media, newV2Media), jsonList(e.Media, mediaKey),
		id(a.ID), optTime(a.CreatedAt), a.ScreenName, a.Name, a.Description, a.URL, a.Location, id(a.PinnedPostID),
		a.ImageURL, pyBool(a.Protected), count(a.FollowersCount), count(a.FriendsCount), count(a.ListedCount),
		count(a.StatusesCount), pyBool(a.Verified || a.BlueVerified),
	)
}

// id is a decimal id, "" for none.
func id(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func count(n int64) string { return strconv.FormatInt(n, 10) }

func optCount(n *int64) string {
	if n == nil {
		return ""
	}
	return count(*n)
}

func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(v2Time)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// jsonList is a JSON array of the items as conv makes them, "" when there
// are none.
func jsonList[T, U any](items []T, conv func(T) U) string {
	if len(items) == 0 {
		return ""
	}
	out := make([]U, len(items))
	for i, x := range items {
		out[i] = conv(x)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(out) //nolint:errcheck // strings and media objects always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// mediaKey is a media item's key as API v2 writes it: its type's number,
// "_", its id.
func mediaKey(m social.Media) string {
	kind := "3"
	switch m.Type {
	case social.MediaVideo:
		kind = "7"
	case social.MediaGIF:
		kind = "16"
	}
	return kind + "_" + strconv.FormatInt(m.ID, 10)
}
