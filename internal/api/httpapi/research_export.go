package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// FullPost is roost's own shape of a post (the full shape of docs/api.md,
// "Objects", as tweets-by-ids serves it): the shape of JSON-lines exports.
func FullPost(v *social.PostView) any { return newFullPost(v) }

// Streamed answers. An export is written as it is read, a chunk at a time;
// each chunk is charged (its own ledger row, the request id with the
// chunk's number) before it is written, so every post sent is paid for and
// the response never waits for the whole set. A failure before the first
// chunk is answered as any error is; after it, the connection is cut, so a
// client never mistakes a truncated export for a whole one.
//
// With an Idempotency-Key, the answer keeps a record (social.StreamKey)
// for social.IdempotencyWindow: the newest post id of the first try bounds
// the answer's posts for every try, and each debit moves the greatest post
// id paid for, in its own transaction, as a compare-and-set. A repeat
// sends again free what earlier tries paid for and charges only the rest,
// so an export retried after any interruption is charged once a post; a
// network paid for is sent again free.

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
	// rec is the record of the request's Idempotency-Key (nil without
	// one), as this try last read or moved it; asked is what the try
	// asked StartStream for.
	rec   *social.StreamKey
	asked social.StreamKey
	// replayed counts the items sent free: paid for by an earlier try.
	replayed int
}

// keep reads the record of the request's Idempotency-Key, idem (nil:
// none), or starts it with the newest post id as its bound.
func (st *stream) keep(ctx context.Context, idem *social.StoredResponse) error {
	if idem == nil {
		return nil
	}
	bound, err := st.s.store.MaxPostID(ctx)
	if err != nil {
		return fmt.Errorf("stream record: %w", err)
	}
	st.asked = social.StreamKey{KeyID: idem.KeyID, Key: idem.Key, Fingerprint: idem.Fingerprint, Bound: bound,
		CreatedAt: idem.CreatedAt}
	rec, err := st.s.store.StartStream(ctx, st.asked)
	if errors.Is(err, social.ErrConflict) {
		return errReused()
	}
	if err != nil {
		return fmt.Errorf("stream record: %w", err)
	}
	st.rec = &rec
	return nil
}

// bounded is q limited to the posts of the record's bound (q itself
// without a record): every try reads the posts of the first.
func (st *stream) bounded(q *search.Query) *search.Query {
	if st.rec == nil {
		return q
	}
	var root search.Node = search.IDBound{Max: true, ID: st.rec.Bound}
	if q.Root != nil {
		root = search.And{Children: []search.Node{q.Root, root}}
	}
	b := *q
	b.Root = root
	return &b
}

// charge debits items before a part is written (moving the record by
// progress, when set) and extends the write deadline for it.
func (st *stream) charge(ctx context.Context, items int, progress *social.StreamProgress) error {
	st.parts++
	amount, _, err := st.s.biller.Charge(ctx, social.Debit{KeyID: st.a.key.ID,
		RequestID: st.info.id + "/" + strconv.Itoa(st.parts), Endpoint: st.rt.name, Items: items, Stream: progress})
	if errors.Is(err, social.ErrInsufficientBalance) {
		err = errInsufficient
	}
	if err != nil {
		return err
	}
	st.info.items += items
	st.info.charged += amount
	st.s.metrics.charge(st.rt.name, items, amount)
	st.sending()
	return nil
}

// sending extends the write deadline for a part about to be written.
func (st *stream) sending() {
	st.rc.SetWriteDeadline(time.Now().Add(streamWriteTime)) //nolint:errcheck // not every writer has deadlines
	st.wrote = true
}

// chargeTo charges items that move the record's PaidThrough from where
// this try saw it to to. When a concurrent try moved it first, nothing is
// charged: the record is read again and chargeTo reports false, for the
// caller to count anew what is still unpaid.
func (st *stream) chargeTo(ctx context.Context, items int, to int64) (bool, error) {
	from := st.rec.PaidThrough
	err := st.charge(ctx, items, &social.StreamProgress{Key: st.rec.Key, Fingerprint: st.rec.Fingerprint, From: from, To: to})
	if err == nil {
		if items > 0 {
			st.rec.PaidThrough, st.rec.Items = to, st.rec.Items+int64(items)
		}
		return true, nil
	}
	if !errors.Is(err, social.ErrConflict) {
		return false, err
	}
	rec, rerr := st.s.store.StartStream(ctx, st.asked)
	if rerr != nil {
		return false, fmt.Errorf("stream record: %w", rerr)
	}
	if rec.Bound != st.rec.Bound || !rec.CreatedAt.Equal(st.rec.CreatedAt) || rec.PaidThrough <= from {
		return false, fmt.Errorf("the record of Idempotency-Key %q expired or did not move: %w", st.rec.Key, err)
	}
	*st.rec = rec
	return false, nil
}

// chargePosts is an export's charge before a chunk: every post without a
// record; with one, the posts after its PaidThrough, which moves to the
// chunk's last post (the posts up to PaidThrough are sent free).
func (st *stream) chargePosts(ctx context.Context, views []social.PostView) error {
	if st.rec == nil {
		return st.charge(ctx, len(views), nil)
	}
	var last int64
	for i := range views {
		last = max(last, views[i].ID)
	}
	for {
		unpaid := 0
		for i := range views {
			if views[i].ID > st.rec.PaidThrough {
				unpaid++
			}
		}
		if unpaid == 0 {
			st.replayed += len(views)
			st.sending()
			return nil
		}
		charged, err := st.chargeTo(ctx, unpaid, last)
		if err != nil {
			return err
		}
		if charged {
			st.replayed += len(views) - unpaid
			return nil
		}
	}
}

// chargeOnce is a network's charge: its items, or nothing when an earlier
// try paid for it (then it reports true: the answer is sent again free).
func (st *stream) chargeOnce(ctx context.Context, items int) (bool, error) {
	if st.rec == nil {
		return false, st.charge(ctx, items, nil)
	}
	for st.rec.Items == 0 || st.rec.PaidThrough != st.rec.Bound {
		if charged, err := st.chargeTo(ctx, items, st.rec.Bound); charged || err != nil {
			return false, err
		}
	}
	st.replayed += items
	st.sending()
	return true, nil
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
// keeping a budget can settle it exactly. headerItemsReplayed, beside it,
// counts the items sent free because an earlier try with the same
// Idempotency-Key paid for them.
const (
	headerItems         = "X-Roost-Items"
	headerItemsReplayed = "X-Roost-Items-Replayed"
)

// streamed runs a streamed route after the checks every endpoint makes
// (endpoint): serve writes through st. idem is the request's
// Idempotency-Key, if any.
func (s *server) streamed(w http.ResponseWriter, r *http.Request, rt *route, a *args, idem *social.StoredResponse) {
	ctx := r.Context()
	st := &stream{s: s, rt: rt, a: a, w: w, rc: http.NewResponseController(w), info: infoFrom(ctx)}
	err := st.keep(ctx, idem)
	if err == nil {
		err = rt.stream(ctx, s, a, st)
	}
	if err == nil {
		w.Header().Set(http.TrailerPrefix+headerItems, strconv.Itoa(st.info.items))
		w.Header().Set(http.TrailerPrefix+headerItemsReplayed, strconv.Itoa(st.replayed))
		return
	}
	if !st.wrote {
		w.Header().Del("Content-Disposition")
		w.Header().Del("Cache-Control")
		writeError(w, r, s.log, s.classify(rt, err))
		return
	}
	// A balance run out or a client gone is the client's doing (the
	// latter counted as StatusClientClosed); a database out of reach is
	// a warning.
	level := slog.LevelError
	switch {
	case clientGone(r):
		st.info.gone, level = true, slog.LevelInfo
	case errors.Is(err, errInsufficient):
		level = slog.LevelInfo
	case errors.Is(err, social.ErrUnavailable):
		level = slog.LevelWarn
	}
	s.log.Log(ctx, level, "streamed answer cut short", "request_id", st.info.id, "route", rt.name,
		"items", st.info.items, "replayed", st.replayed, "err", err)
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
	_, err = export.Posts(ctx, s.store, st.bounded(a.query), xw, export.Options{Before: st.chargePosts,
		Limit: int64(a.research.limit)})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !st.wrote {
		st.wrote = true // the CSV header of an empty export
	}
	return xw.Close()
}
