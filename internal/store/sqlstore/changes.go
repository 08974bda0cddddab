package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// ChangeLog records what a write changes, for the monitors: a data write
// calls Begin at the start of its transaction (before it writes) and
// Commit at its end, both on the transaction. While no monitor exists,
// Begin costs one probe of the monitors table and Commit nothing.
type ChangeLog struct {
	// Lock, when set, runs before the changes are inserted and holds until
	// the transaction ends, so that change-log rows become visible in the
	// order of their numbers (PostgreSQL: a transaction-level advisory
	// lock; SQLite has one writer and needs none).
	Lock string
}

// PendingChanges are the changes a write is about to make; nil when no
// monitor exists.
type PendingChanges struct {
	changes []monitor.Change
}

// watchedQuery is true while any monitor exists (paused ones too: their
// events wait for a top-up).
const watchedQuery = `SELECT EXISTS (SELECT 1 FROM monitors)`

// Begin finds what the batch adds that monitors look at: posts not stored
// yet, full profiles, follows not stored yet. It must run in the write's
// transaction before the write (deleted follows are added by Unfollowed,
// deleted posts and users by Deleted).
func (l ChangeLog) Begin(ctx context.Context, tx DB, b *social.Batch) (*PendingChanges, error) {
	if len(b.Posts) == 0 && len(b.Users) == 0 && len(b.Follows) == 0 && len(b.Unfollows) == 0 &&
		len(b.DeletePosts) == 0 && len(b.DeleteUsers) == 0 {
		return nil, nil
	}
	watched := false
	if err := tx.Query(ctx, watchedQuery, nil, func(r Rows) error { return r.Scan(&watched) }); err != nil {
		return nil, fmt.Errorf("change log: %w", err)
	}
	if !watched {
		return nil, nil
	}
	now := time.Now()
	pc := &PendingChanges{}
	if err := pc.posts(ctx, tx, b.Posts, now); err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	for i := range b.Users {
		if u := &b.Users[i]; !u.Stub && !seen[u.ID] {
			seen[u.ID] = true
			pc.changes = append(pc.changes, monitor.Change{Kind: monitor.ChangeProfile, Subject: u.ID, At: now})
		}
	}
	if err := pc.follows(ctx, tx, b.Follows, now); err != nil {
		return nil, err
	}
	return pc, nil
}

// changeChunk bounds the values of one look-up or insert.
const changeChunk = 400

func (pc *PendingChanges) posts(ctx context.Context, tx DB, ps []social.Post, now time.Time) error {
	args := make([]any, len(ps))
	for i := range ps {
		args[i] = ps[i].ID
	}
	ids, err := in(ctx, tx, `SELECT id FROM posts WHERE id IN (%s)`, args, func(r Rows) (int64, error) {
		var id int64
		return id, r.Scan(&id)
	})
	if err != nil {
		return fmt.Errorf("change log: posts: %w", err)
	}
	stored := make(map[int64]bool, len(ids))
	for _, id := range ids {
		stored[id] = true
	}
	for i := range ps {
		if p := &ps[i]; !stored[p.ID] {
			stored[p.ID] = true
			pc.changes = append(pc.changes, monitor.Change{Kind: monitor.ChangePost, Subject: p.AuthorID, Object: p.ID, At: now})
		}
	}
	return nil
}

func (pc *PendingChanges) follows(ctx context.Context, tx DB, fs []social.Follow, now time.Time) error {
	type pair struct{ a, b int64 }
	stored := map[pair]bool{}
	for lo := 0; lo < len(fs); lo += changeChunk {
		part := fs[lo:min(lo+changeChunk, len(fs))]
		args := make([]any, 0, 2*len(part))
		for _, f := range part {
			args = append(args, f.FollowerID)
		}
		for _, f := range part {
			args = append(args, f.FolloweeID)
		}
		n := len(part)
		err := tx.Query(ctx, `SELECT follower_id, followee_id FROM follows WHERE follower_id IN (`+Placeholders(n)+
			`) AND followee_id IN (`+Placeholders(n)+`)`, args, func(r Rows) error {
			var p pair
			err := r.Scan(&p.a, &p.b)
			stored[p] = true
			return err
		})
		if err != nil {
			return fmt.Errorf("change log: follows: %w", err)
		}
	}
	for _, f := range fs {
		if p := (pair{f.FollowerID, f.FolloweeID}); !stored[p] {
			stored[p] = true
			pc.changes = append(pc.changes, monitor.Change{Kind: monitor.ChangeFollow, Subject: f.FollowerID, Object: f.FolloweeID, At: now})
		}
	}
	return nil
}

// Unfollowed adds deleted follows to the pending changes: the deletion of
// a follow (Batch.Unfollows) calls it, in its transaction, for the pairs it
// actually deleted. pc may be nil (no monitor: nothing to log).
func (pc *PendingChanges) Unfollowed(pairs []social.Follow) {
	if pc == nil {
		return
	}
	now := time.Now()
	for _, f := range pairs {
		pc.changes = append(pc.changes, monitor.Change{Kind: monitor.ChangeUnfollow, Subject: f.FollowerID, Object: f.FolloweeID, At: now})
	}
}

// Deleted adds the changes of a batch's deletions (Deleter.Apply) to the
// pending changes. pc may be nil (no monitor: nothing to log).
func (pc *PendingChanges) Deleted(changes []monitor.Change) {
	if pc != nil {
		pc.changes = append(pc.changes, changes...)
	}
}

// Commit appends the pending changes to the log, in the write's
// transaction, after its writes.
func (l ChangeLog) Commit(ctx context.Context, tx DB, pc *PendingChanges) error {
	if pc == nil || len(pc.changes) == 0 {
		return nil
	}
	if l.Lock != "" {
		if err := tx.Query(ctx, l.Lock, nil, func(Rows) error { return nil }); err != nil {
			return fmt.Errorf("change log: lock: %w", err)
		}
	}
	const width = 4
	for lo := 0; lo < len(pc.changes); lo += changeChunk {
		part := pc.changes[lo:min(lo+changeChunk, len(pc.changes))]
		args := make([]any, 0, width*len(part))
		for _, c := range part {
			args = append(args, int64(c.Kind), c.Subject, c.Object, c.At.UnixMicro())
		}
		q := `INSERT INTO changes (kind, subject, object, at) VALUES ` + rowsOf(len(part), width)
		if err := tx.Query(ctx, q, args, func(Rows) error { return nil }); err != nil {
			return fmt.Errorf("change log: %w", err)
		}
	}
	return nil
}

// rowsOf is "(?,?),(?,?)…": n rows of width placeholders.
func rowsOf(n, width int) string {
	row := "(" + Placeholders(width) + ")"
	b := make([]byte, 0, n*(len(row)+1))
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, row...)
	}
	return string(b)
}
