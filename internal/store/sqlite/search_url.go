package sqlite

import (
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// urlDriver drives url:SUB through the trigram index post_urls (migration
// 0005), which holds each post's expanded URLs lower-cased: SUB is split at
// '_' (which stands for '_' or '-'), and every piece of three or more
// characters must occur in the URLs, as one FTS5 string each. A post that
// url: matches holds every such piece in one of its lower-cased URLs, so
// the driver's rows are a superset of the matches, and the exact condition
// (roost_url) decides. SUB with no piece long enough, or with non-ASCII
// text (whose case folding the tokenizer may do differently), gets no
// driver: the query is then driven by its other conditions.
func urlDriver(n search.CondURL) (access, bool) {
	var pieces []string
	for _, p := range strings.Split(n.Sub, "_") {
		for i := 0; i < len(p); i++ {
			if p[i] >= 0x80 {
				return access{}, false
			}
		}
		if len(p) >= 3 {
			pieces = append(pieces, ftsQuote(p))
		}
	}
	if len(pieces) == 0 {
		return access{}, false
	}
	return access{name: "url", from: "post_urls u CROSS JOIN posts p ON p.id = u.rowid", key: "u.rowid",
		cond: sqlstore.Cond{SQL: "u.post_urls MATCH ?", Args: []any{strings.Join(pieces, " AND ")}},
		est:  "post_urls u", ekey: "u.rowid"}, true
}
