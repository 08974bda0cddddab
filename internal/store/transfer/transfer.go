// Package transfer copies a whole roost database from one store to another,
// across engines (SQLite to PostgreSQL and back): every user (extended bio
// included), post, relation (likes included), list, community and audio
// space, the tombstones of deleted posts and users (as deletions: their
// time becomes the copy's), and the accounts verbatim (keys with their
// digests, balances and revocations, and the ledger with its ids), and of
// a gateway its upstream ledger (with its ids) and what each upstream
// budget period spent; its page cache is not copied (a cache, refetched
// as needed: the posts and users of its pages are copied as data). Copying
// twice changes nothing: values are upserted and account rows whose ids
// exist are left alone.
package transfer

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
)

// Source is a store that can be read whole. Both engines' stores are
// Sources.
type Source interface {
	// Export streams every stored value in batches, each applicable by a
	// Writer as it comes (users before what refers to them).
	Export(ctx context.Context, fn func(*social.Batch) error) error
	// Keys lists every API key.
	Keys(ctx context.Context) ([]social.APIKey, error)
	// ExportLedger streams every ledger row, by id.
	ExportLedger(ctx context.Context, fn func([]social.LedgerEntry) error) error
	// Counts reports how many values of each kind are stored.
	Counts(ctx context.Context) (map[string]int64, error)
}

// Destination is a store that can take a copy. Both engines' stores are
// Destinations.
type Destination interface {
	social.Writer
	// RestoreAccounts stores keys and ledger rows with their ids, leaving
	// rows whose ids exist as they are.
	RestoreAccounts(ctx context.Context, keys []social.APIKey, ledger []social.LedgerEntry) error
	// Counts reports how many values of each kind are stored.
	Counts(ctx context.Context) (map[string]int64, error)
}

// Upstream is a store with a gateway's upstream ledger and budget. Both
// engines' stores are.
type Upstream interface {
	// ExportUpstream streams the upstream ledger by id, then returns what
	// each budget period spent.
	ExportUpstream(ctx context.Context, fn func([]ledger.Entry) error) (map[string]int64, error)
	// RestoreUpstream stores ledger rows with their ids and periods' spending
	// (nothing reserved), leaving those already stored as they are.
	RestoreUpstream(ctx context.Context, rows []ledger.Entry, spent map[string]int64) error
}

// Counts is how many values of each kind a copy sent, by table name as
// social.Store.Counts names them.
type Counts map[string]int64

// Copy copies everything in from into to, drawing a progress bar on
// progress (nil: none), and returns how many values of each kind it sent.
func Copy(ctx context.Context, from Source, to Destination, progress io.Writer) (Counts, error) {
	if progress == nil {
		progress = io.Discard
	}
	src, err := from.Counts(ctx)
	if err != nil {
		return nil, fmt.Errorf("transfer: count the source: %w", err)
	}
	var total int64
	for _, n := range src {
		total += n
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(progress),
		progressbar.OptionSetDescription("copying"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("rows"),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(progress) }),
	)
	sent := Counts{}
	export := func(w social.Writer) error {
		return from.Export(ctx, func(b *social.Batch) error {
			if _, err := w.Write(ctx, b); err != nil {
				return fmt.Errorf("transfer: write: %w", err)
			}
			count(sent, b)
			bar.Add(b.Len())
			return nil
		})
	}
	if bl, ok := to.(social.BulkLoader); ok {
		err = bl.Bulk(ctx, src["posts"], func(bw social.Writer) error { return bulkExport(ctx, bw, export) })
	} else {
		err = export(to)
	}
	if err != nil {
		return sent, err
	}
	keys, err := from.Keys(ctx)
	if err != nil {
		return sent, fmt.Errorf("transfer: read keys: %w", err)
	}
	if err := to.RestoreAccounts(ctx, keys, nil); err != nil {
		return sent, fmt.Errorf("transfer: restore keys: %w", err)
	}
	sent["api_keys"] = int64(len(keys))
	bar.Add(len(keys))
	err = from.ExportLedger(ctx, func(rows []social.LedgerEntry) error {
		if err := to.RestoreAccounts(ctx, nil, rows); err != nil {
			return fmt.Errorf("transfer: restore ledger: %w", err)
		}
		sent["ledger"] += int64(len(rows))
		bar.Add(len(rows))
		return nil
	})
	if err != nil {
		return sent, err
	}
	if err := copyUpstream(ctx, from, to, sent); err != nil {
		return sent, err
	}
	bar.Finish()
	if m, ok := to.(Maintainer); ok {
		if err := m.Maintain(ctx); err != nil {
			return sent, fmt.Errorf("transfer: after the copy: %w", err)
		}
	}
	return sent, nil
}

// copyUpstream copies the upstream ledger and budget when both stores
// hold them.
func copyUpstream(ctx context.Context, from Source, to Destination, sent Counts) error {
	src, ok := from.(Upstream)
	dst, ok2 := to.(Upstream)
	if !ok || !ok2 {
		return nil
	}
	spent, err := src.ExportUpstream(ctx, func(rows []ledger.Entry) error {
		if err := dst.RestoreUpstream(ctx, rows, nil); err != nil {
			return fmt.Errorf("transfer: restore upstream ledger: %w", err)
		}
		sent["upstream_ledger"] += int64(len(rows))
		return nil
	})
	if err != nil {
		return fmt.Errorf("transfer: read the upstream ledger: %w", err)
	}
	if err := dst.RestoreUpstream(ctx, nil, spent); err != nil {
		return fmt.Errorf("transfer: restore upstream budget: %w", err)
	}
	if len(spent) > 0 {
		sent["upstream_budget"] = int64(len(spent))
	}
	return nil
}

// bulkExport runs export into the bulk writer bw through a social.Pipe, so
// that reading the source overlaps writing, and when bw takes several
// Writes at once (social.ConcurrentWriter), that many: an export holds each
// value once, so no two of its batches share a key.
func bulkExport(ctx context.Context, bw social.Writer, export func(social.Writer) error) error {
	workers := 1
	if cw, ok := bw.(social.ConcurrentWriter); ok {
		workers = cw.Concurrency()
	}
	p := social.NewPipe(ctx, bw, workers)
	err := export(p.Unordered())
	if cerr := p.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("transfer: write: %w", cerr)
	}
	return err
}

// Maintainer is a Destination with upkeep to do after a bulk load (the
// PostgreSQL store refreshes statistics and index pending lists).
type Maintainer interface {
	Maintain(ctx context.Context) error
}

// count adds a batch's values to c under their table names.
func count(c Counts, b *social.Batch) {
	for name, n := range map[string]int{
		"users": len(b.Users), "posts": len(b.Posts), "follows": len(b.Follows), "reposts": len(b.Reposts),
		"affiliations": len(b.Affiliations), "highlights": len(b.Highlights), "lists": len(b.Lists),
		"list_members": len(b.ListMembers), "list_subscribers": len(b.ListSubscribers),
		"communities": len(b.Communities), "community_members": len(b.CommunityMembers),
		"likes": len(b.Likes), "spaces": len(b.Spaces), "tombstones": len(b.DeletePosts) + len(b.DeleteUsers),
	} {
		if n > 0 {
			c[name] += int64(n)
		}
	}
}
