package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/roostapi/roost/export"
	"github.com/roostapi/roost/social"
)

// FullPost is roost's own shape of a post (the full shape of SPEC 2.1, as
// tweets-by-ids serves it): the shape of JSON-lines exports.
func FullPost(v *social.PostView) any { return newFullPost(v) }

// Streamed answers. An export is written as it is read, a chunk at a time;
// each chunk is charged (its own ledger row, the request id with the
// chunk's number) before it is written, so every post sent is paid for and
// the response never waits for the whole set. A failure before the first
// chunk is answered as any error is; after it, the connection is cut, so a
// client never mistakes a truncated export for a whole one.

// streamWriteTime is how long writing one chunk may take before the
// connection is given up (the server's write timeout is reset per chunk).
const streamWriteTime = 60 * time.Second

// maxExportLimit bounds the limit parameter of an export.
const maxExportLimit = 1 << 40

// parseExport reads format (csv, jsonl, ids, v1 or v2; default csv) and an
// optional limit on the number of posts.
func parseExport(a *args, qs url.Values) error {
	var err error
	if a.research.format, err = choice(qs, "format", export.Formats()); err != nil {
		return err
	}
	n, err := intParam(qs, "limit", 0, 1, maxExportLimit)
	a.research.limit = n
	return err
}

// stream is a streamed answer in progress: it charges the key before each
// part is written.
type stream struct {
	s     *server
	rt    *route
	a     *args
	w     http.ResponseWriter
	rc    *http.ResponseController
	info  *reqInfo
	parts int
	wrote bool
}

// charge debits items before a part is written and extends the write
// deadline for it.
func (st *stream) charge(ctx context.Context, items int) error {
	st.parts++
	amount, _, err := st.s.biller.Charge(ctx, social.Debit{KeyID: st.a.key.ID,
		RequestID: st.info.id + "/" + strconv.Itoa(st.parts), Endpoint: st.rt.name, Items: items})
	if errors.Is(err, social.ErrInsufficientBalance) {
		err = errInsufficient
	}
	if err != nil {
		return err
	}
	st.info.items += items
	st.info.charged += amount
	st.s.metrics.charge(st.rt.name, items, amount)
	st.rc.SetWriteDeadline(time.Now().Add(streamWriteTime)) //nolint:errcheck // not every writer has deadlines
	st.wrote = true
	return nil
}

// Write sends part of the body; the headers go with the first part.
func (st *stream) Write(p []byte) (int, error) {
	n, err := st.w.Write(p)
	if err == nil {
		err = st.rc.Flush()
		if errors.Is(err, http.ErrNotSupported) {
			err = nil
		}
	}
	return n, err
}

// headerItems tells a client how many items a streamed answer was
// charged: a header when the count is known before the body (a network),
// a trailer after a whole body (every streamed answer), so that a client
// keeping a budget can settle it exactly.
const headerItems = "X-Roost-Items"

// streamed runs a streamed route after the checks every endpoint makes
// (endpoint): serve writes through st.
func (s *server) streamed(w http.ResponseWriter, r *http.Request, rt *route, a *args) {
	st := &stream{s: s, rt: rt, a: a, w: w, rc: http.NewResponseController(w), info: infoFrom(r.Context())}
	err := rt.stream(r.Context(), s, a, st)
	if err == nil {
		w.Header().Set(http.TrailerPrefix+headerItems, strconv.Itoa(st.info.items))
		return
	}
	if !st.wrote {
		w.Header().Del("Content-Disposition")
		w.Header().Del("Cache-Control")
		writeError(w, r, s.log, s.classify(rt, err))
		return
	}
	s.log.ErrorContext(r.Context(), "streamed answer cut short", "request_id", st.info.id, "route", rt.name,
		"items", st.info.items, "err", err)
	panic(http.ErrAbortHandler)
}

// attachment names the file a streamed answer is saved as.
func attachment(w http.ResponseWriter, contentType, name string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
}

// streamExport is GET /search/export: the matches of a query, oldest first,
// each once, in the format asked; one item per post.
func streamExport(ctx context.Context, s *server, a *args, st *stream) error {
	attachment(st.w, export.ContentType(a.research.format), "roost-export"+export.Extension(a.research.format))
	xw, err := export.NewWriter(a.research.format, st, FullPost)
	if err != nil {
		return err
	}
	_, err = export.Posts(ctx, s.store, a.query, xw, export.Options{Before: st.charge, Limit: int64(a.research.limit)})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !st.wrote {
		st.wrote = true // the CSV header of an empty export
	}
	return xw.Close()
}
