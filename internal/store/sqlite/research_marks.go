package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"strings"

	sqlite3 "modernc.org/sqlite"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Marker tokens. A post's full-text row (column text) ends with one token
// for each of these facts about it, so that the research readers count
// and rank the matches of a word from the index alone, without reading
// the posts (research_fast.go). A marker starts with a private-use
// character: unicode61 keeps it inside a token (its default token
// classes are L*, N* and Co), and IndexText never outputs one (it keeps
// letters, numbers and marks only), so no post's text makes a marker and
// no query word matches one.
const (
	markRepost  = "\ue000r" // a native repost (sqlstore.FlagRepost)
	markInexact = "\ue000i" // flagFTSInexact: unicode61 may tokenize the text otherwise
	markTime    = "\ue000t" // created_at lies in another second than the id's time
	markTags    = "\ue000h" // has a hashtag (sqlstore.FlagHashtags)
)

// ftsMarks are the marker tokens of a post with id, created_at (micros)
// and flags, space-separated ("" when it has none).
func ftsMarks(id, created, flags int64) string {
	var b strings.Builder
	add := func(m string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m)
	}
	if flags&sqlstore.FlagRepost != 0 {
		add(markRepost)
	}
	if flags&flagFTSInexact != 0 {
		add(markInexact)
	}
	if !timeFromID(id, created) {
		add(markTime)
	}
	if flags&sqlstore.FlagHashtags != 0 {
		add(markTags)
	}
	return b.String()
}

// timeFromID reports whether created_at (micros) lies in the second the
// snowflake id's time lies in: then the id alone puts the post in its
// minute, hour or day.
func timeFromID(id, created int64) bool {
	if id <= 0 {
		return false
	}
	ms := id>>social.SnowflakeShift + social.SnowflakeEpochMS
	return floorDiv(ms, 1000) == floorDiv(created, 1_000_000)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ftsText is the text column of a post's full-text row: its IndexText,
// then its markers.
func ftsText(index string, id, created, flags int64) string {
	marks := ftsMarks(id, created, flags)
	switch {
	case marks == "":
		return index
	case index == "":
		return marks
	}
	return index + " " + marks
}

// Functions for migration 0036, which adds the markers to the rows of
// posts stored before: roost_fts_marks(id, created_at, flags),
// roost_fts_text(text, id, created_at, flags) and
// roost_fts_urls(entities), the urls column of the row.
const (
	fnFTSMarks = "roost_fts_marks"
	fnFTSText  = "roost_fts_text"
	fnFTSURLs  = "roost_fts_urls"
)

func init() {
	ints := func(args []driver.Value) ([]int64, bool) {
		out := make([]int64, len(args))
		for i, a := range args {
			v, ok := a.(int64)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	}
	sqlite3.MustRegisterDeterministicScalarFunction(fnFTSMarks, 3, func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
		v, ok := ints(args)
		if !ok {
			return "", nil
		}
		return ftsMarks(v[0], v[1], v[2]), nil
	})
	sqlite3.MustRegisterDeterministicScalarFunction(fnFTSText, 4, func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
		text, _ := textArg(args[0])
		v, ok := ints(args[1:])
		if !ok {
			return search.IndexText(text), nil
		}
		return ftsText(search.IndexText(text), v[0], v[1], v[2]), nil
	})
	sqlite3.MustRegisterDeterministicScalarFunction(fnFTSURLs, 1, func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
		raw, _ := textArg(args[0])
		var e social.Entities
		if raw != "" {
			if err := json.Unmarshal([]byte(raw), &e); err != nil {
				return nil, err
			}
		}
		return urlText(&e), nil
	})
}
