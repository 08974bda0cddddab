package social

import (
	"context"
	"time"
)

// Snapshot describes a saved copy of a database's world: its users,
// posts, relations, search indexes, tombstones and the living world's
// state, but never its keys, credits, ledger or monitors.
type Snapshot struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// Users and Posts are the rows the copy holds (stubs and reposts
	// included).
	Users int64 `json:"users"`
	Posts int64 `json:"posts"`
}

// Snapshots saves and restores copies of the world (the admin API's
// /admin/world/snapshots). Names are checked by the store: a bad name is
// ErrInvalid, a name taken by Save ErrConflict, an unknown one
// ErrNotFound.
type Snapshots interface {
	// SaveSnapshot copies the world as it is now under name.
	SaveSnapshot(ctx context.Context, name string) (Snapshot, error)
	// RestoreSnapshot puts the world back as it was when name was saved,
	// in one transaction, as one change of the data: every reader's
	// caches (Versions' content and deletions counters move) forget what
	// they held.
	RestoreSnapshot(ctx context.Context, name string) (Snapshot, error)
	// ListSnapshots is every snapshot, by name.
	ListSnapshots(ctx context.Context) ([]Snapshot, error)
	// DropSnapshot deletes a snapshot.
	DropSnapshot(ctx context.Context, name string) error
}
