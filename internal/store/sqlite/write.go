package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/world"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write stores a batch in one transaction (see social.Writer). A tick of
// the living world (Batch.LiveTick) commits with synchronous=NORMAL (see
// relaxed): a power loss may lose the last ticks, never part of one, and
// the living world then makes them again, the same.
func (s *Store) Write(ctx context.Context, b *social.Batch) (st social.WriteStats, err error) {
	// Statements the last writes met for the first time are prepared for
	// good while the write connection is free, before this write takes it
	// (not after a write: its caller would wait for them past its commit).
	s.wstmts.prepare(ctx, s.write)
	if b.LiveTick == 0 {
		st, err = s.writeBatch(ctx, s.write, b)
		return st, unavailable(err)
	}
	err = s.relaxed(ctx, 0, func(conn *sql.Conn) error {
		st, err = s.writeBatch(ctx, conn, b)
		return err
	})
	return st, unavailable(err)
}

// txBeginner is a *sql.DB or a *sql.Conn.
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// writeBatch stores a batch in one transaction begun on db.
func (s *Store) writeBatch(ctx context.Context, db txBeginner, b *social.Batch) (social.WriteStats, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: begin: %w", err)
	}
	defer tx.Rollback()
	st, err := s.writeIn(ctx, tx, b)
	if err != nil {
		return social.WriteStats{}, err
	}
	if err := tx.Commit(); err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: commit: %w", err)
	}
	return st, nil
}

// WriteTicks writes ticks of the living world in one transaction (see
// world.TickWriter), committed as Write commits a tick.
func (s *Store) WriteTicks(ctx context.Context, fn func(w world.Store, write func(*social.Batch) error) error) error {
	s.wstmts.prepare(ctx, s.write)
	return s.relaxed(ctx, 0, func(conn *sql.Conn) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite: write: begin: %w", err)
		}
		defer tx.Rollback()
		// The ticks' reads through the write connection's kept statements,
		// as the writes.
		reads := &batchWriter{ctx: ctx, tx: tx, cache: &s.wstmts, stmts: map[string]*sql.Stmt{}}
		defer reads.close()
		db := sqlDB(reads.query)
		w := sqlstore.World{Reader: sqlstore.Reader{DB: db, Dialect: s.Reader.Dialect}, Write: db}
		err = fn(w, func(b *social.Batch) error {
			if b.LiveTick == 0 {
				return fmt.Errorf("sqlite: write ticks: a batch without its tick: %w", social.ErrInvalid)
			}
			_, err := s.writeIn(ctx, tx, b)
			return err
		})
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqlite: write: commit: %w", err)
		}
		return nil
	})
}

// writeIn stores a batch in tx.
func (s *Store) writeIn(ctx context.Context, tx *sql.Tx, b *social.Batch) (social.WriteStats, error) {
	w := &batchWriter{ctx: ctx, tx: tx, cache: &s.wstmts, stmts: map[string]*sql.Stmt{}}
	defer w.close()
	b, st, deleted, err := deleter.Apply(ctx, sqlDB(w.query), b)
	if err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: %w", err)
	}
	changes, err := changeLog.Begin(ctx, sqlDB(w.query), b)
	if err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: %w", err)
	}
	changes.Deleted(deleted)
	if err := w.users(b.Users, &st); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.posts(b.Posts, &st); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.relations(b, changes); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.spaces(b.Spaces); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.ix.flush(w); err != nil {
		return social.WriteStats{}, err
	}
	if b.LiveTick != 0 {
		if err := sqlstore.AdvanceTick(ctx, sqlDB(w.query), b.LiveTick); err != nil {
			return social.WriteStats{}, fmt.Errorf("sqlite: write: %w", err)
		}
	}
	if err := changeLog.Commit(ctx, sqlDB(w.query), changes); err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: %w", err)
	}
	if err := sqlstore.BumpVersion(ctx, sqlDB(w.query), sqlstore.VersionContent); err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: %w", err)
	}
	return st, nil
}

// batchWriter holds one write transaction and its prepared statements.
type batchWriter struct {
	ctx   context.Context
	tx    *sql.Tx
	cache *writeStmts          // statements kept across transactions
	stmts map[string]*sql.Stmt // this transaction's

	// Index rows of the batch's posts, written at the end (see postIndex).
	ix postIndex
}

func (w *batchWriter) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// stmt returns the statement q within the transaction: the write
// connection's prepared one when the cache holds it, else one prepared for
// this transaction. keep false leaves q out of the cache (a text of many
// sizes).
func (w *batchWriter) stmt(q string, keep bool) (*sql.Stmt, error) {
	if st, ok := w.stmts[q]; ok {
		return st, nil
	}
	var kept *sql.Stmt
	if keep {
		kept = w.cache.get(q)
	}
	var st *sql.Stmt
	if kept != nil {
		st = w.tx.StmtContext(w.ctx, kept)
	} else {
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, q); err != nil {
			return nil, fmt.Errorf("sqlite: write: prepare: %w", err)
		}
	}
	w.stmts[q] = st
	return st, nil
}

// exec runs a statement.
func (w *batchWriter) exec(query string, args ...any) error {
	return w.execKept(query, true, args...)
}

// execKept is exec; keep false leaves the statement out of the cache.
func (w *batchWriter) execKept(query string, keep bool, args ...any) error {
	st, err := w.stmt(query, keep)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(w.ctx, args...); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	return nil
}

// query runs a statement that returns rows.
func (w *batchWriter) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(query, true)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// existing returns which of ids are already rows of table, with the
// values of the SQL expressions cols (text each; none: just presence).
func (w *batchWriter) existing(table string, ids []int64, cols ...string) (map[int64][]string, error) {
	out := make(map[int64][]string)
	if len(ids) == 0 {
		return out, nil
	}
	// Appending (every id above the largest stored one, an O(log n) probe
	// of the primary key) needs no look-up: nothing exists.
	lo := ids[0]
	for _, id := range ids[1:] {
		lo = min(lo, id)
	}
	var top int64
	err := sqlDB(w.query).Query(w.ctx, "SELECT coalesce(max(id), 0) FROM "+table, nil,
		func(r sqlstore.Rows) error { return r.Scan(&top) })
	if err != nil {
		return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
	}
	if lo > top {
		return out, nil
	}
	sel := "id"
	for _, c := range cols {
		sel += ", " + c
	}
	const chunk = 512
	for _, n := range rowChunks(len(ids), chunk) {
		part := ids[:n]
		ids = ids[n:]
		q := "SELECT " + sel + " FROM " + table + " WHERE id IN (" + strings.Repeat("?,", n-1) + "?)"
		args := make([]any, n)
		for i, id := range part {
			args[i] = id
		}
		rows, err := w.query(w.ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
		}
		for rows.Next() {
			var id int64
			vs := make([]string, len(cols))
			dest := []any{&id}
			for i := range vs {
				dest = append(dest, &vs[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
			}
			out[id] = vs
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
		}
	}
	return out, nil
}

const userColumnsWritten = `INSERT INTO users (id, screen_name, name, location, url, description, protected, verified,
	blue_verified, shadow_banned, can_dm, followers_count, friends_count, listed_count, favourites_count,
	statuses_count, media_count, created_at, banner_url, image_url, pinned_post_id, professional_type, extended_bio,
	stub)
VALUES `

// userColumns are the users columns a profile sets, id and stub aside.
var userColumns = []string{"screen_name", "name", "location", "url", "description", "protected", "verified",
	"blue_verified", "shadow_banned", "can_dm", "followers_count", "friends_count", "listed_count",
	"favourites_count", "statuses_count", "media_count", "created_at", "banner_url", "image_url",
	"pinned_post_id", "professional_type", "extended_bio"}

// userUpsertTail replaces a stored user's every field when one differs;
// userRefreshTail does so for a user whose screen name is unchanged,
// leaving it (and so the index users_screen_name) out: SQLite rewrites
// the index rows of every column a SET names, changed or not.
var (
	userUpsertTail  = profileUpsert(userColumns)
	userRefreshTail = profileUpsert(userColumns[1:])
)

// profileUpsert is the ON CONFLICT clause that sets cols and stub = 0 when
// one of them differs from the stored row.
func profileUpsert(cols []string) string {
	stored, excluded := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		stored[i], excluded[i] = "users."+c, "excluded."+c
	}
	return "\nON CONFLICT (id) DO UPDATE SET " + setExcluded(cols) + ", stub = 0\nWHERE (" + strings.Join(stored, ", ") +
		", users.stub) IS NOT (" + strings.Join(excluded, ", ") + ", 0)"
}

// setExcluded is the SET list giving each of cols the row's new value.
func setExcluded(cols []string) string {
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = excluded." + c
	}
	return strings.Join(set, ", ")
}

const stubColumnsWritten = `INSERT INTO users (id, screen_name, name, stub) VALUES `

const stubUpsertTail = `
ON CONFLICT (id) DO UPDATE SET screen_name = excluded.screen_name, name = excluded.name
WHERE users.stub = 1 AND users.screen_name = '' AND excluded.screen_name != ''`

// Values per users row, and rows per statement.
const (
	userArgs  = 23
	stubArgs  = 3
	userChunk = 64
	stubChunk = 500
)

// users upserts a batch's users, many rows per statement: every stub
// first, then every profile, each in batch order. That order ends where
// the batch's order does: a profile replaces a stub, and a stub never
// replaces a stored user, so a stub only counts before any profile of its
// user, and among stubs and among profiles the order is kept. A profile
// replaces every field, the extended bio too: an empty ExtendedBio erases
// a stored one, as an empty location or URL does.
func (w *batchWriter) users(us []social.User, st *social.WriteStats) error {
	if len(us) == 0 {
		return nil
	}
	ids := make([]int64, len(us))
	for i := range us {
		ids[i] = us[i].ID
	}
	old, err := w.existing("users", ids, "screen_name")
	if err != nil {
		return err
	}
	// Stubs first (see above), then the profiles in batch order.
	type profile struct {
		id      int64
		row     []any
		refresh bool
	}
	var stubs []any
	var profiles []profile
	for i := range us {
		u := &us[i]
		if u.ID <= 0 {
			return fmt.Errorf("sqlite: write: user id %d: %w", u.ID, social.ErrInvalid)
		}
		stored, had := old[u.ID]
		if u.Stub {
			stubs = append(stubs, u.ID, u.ScreenName, u.Name)
			if !had {
				st.UsersInserted++
				old[u.ID] = []string{u.ScreenName}
			}
			continue
		}
		profiles = append(profiles, profile{id: u.ID, refresh: had && stored[0] == u.ScreenName, row: []any{
			u.ID, u.ScreenName, u.Name, u.Location, u.URL, u.Description,
			b2i(u.Protected), b2i(u.Verified), b2i(u.BlueVerified), b2i(u.ShadowBanned), b2i(u.CanDM),
			u.FollowersCount, u.FriendsCount, u.ListedCount, u.FavouritesCount, u.StatusesCount, u.MediaCount,
			sqlstore.Micros(u.CreatedAt), u.BannerURL, u.ImageURL, u.PinnedPostID, u.ProfessionalType, u.ExtendedBio}})
		if had {
			st.UsersUpdated++
		} else {
			st.UsersInserted++
		}
		// A later copy in the batch compares with this one.
		old[u.ID] = []string{u.ScreenName}
	}
	if err := w.execRows(stubColumnsWritten, "(?,?,?,1)", stubUpsertTail, stubArgs, stubChunk, stubs); err != nil {
		return err
	}
	up := newUpserts(userColumnsWritten, "("+strings.Repeat("?,", userArgs)+"0)", userArgs, userChunk, userUpsertTail, userRefreshTail)
	for _, p := range profiles {
		if err := up.add(w, p.id, p.row, p.refresh); err != nil {
			return err
		}
	}
	return up.flush(w)
}

// upserts are the rows of one table waiting to be written: full rows
// (new ones, and stored ones whose indexed columns change) and refreshes
// (stored rows whose indexed columns stay, written with a tail that
// leaves those columns out: SQLite rewrites the index rows of every
// column a SET names, changed or not). Two copies of a row in a batch are
// written in order: a row with a full copy waiting has its later copies
// written full too, and a full copy of a row with a refresh waiting
// writes the refreshes first.
type upserts struct {
	full, refresh *pendingRows
}

func newUpserts(head, row string, width, chunk int, fullTail, refreshTail string) *upserts {
	rows := func(tail string) *pendingRows {
		return &pendingRows{head: head, row: row, tail: tail, width: width, chunk: chunk,
			args: make([]any, 0, chunk*width), ids: map[int64]bool{}}
	}
	return &upserts{full: rows(fullTail), refresh: rows(refreshTail)}
}

// add puts a copy of row id in line; refresh says its indexed columns
// equal those stored (or written before it in the batch).
func (u *upserts) add(w *batchWriter, id int64, args []any, refresh bool) error {
	if refresh && !u.full.ids[id] {
		return u.refresh.add(w, id, args)
	}
	if u.refresh.ids[id] {
		if err := u.refresh.flush(w); err != nil {
			return err
		}
	}
	return u.full.add(w, id, args)
}

func (u *upserts) flush(w *batchWriter) error {
	if err := u.refresh.flush(w); err != nil {
		return err
	}
	return u.full.flush(w)
}

// pendingRows are rows waiting for one upsert, written chunk at a time.
type pendingRows struct {
	head, row, tail string
	width, chunk    int
	args            []any
	ids             map[int64]bool
}

func (r *pendingRows) add(w *batchWriter, id int64, args []any) error {
	r.args = append(r.args, args...)
	r.ids[id] = true
	if len(r.args) == cap(r.args) {
		return r.flush(w)
	}
	return nil
}

func (r *pendingRows) flush(w *batchWriter) error {
	if err := w.execRows(r.head, r.row, r.tail, r.width, r.chunk, r.args); err != nil {
		return err
	}
	r.args = r.args[:0]
	clear(r.ids)
	return nil
}

// execRows runs head VALUES row, row… tail over args (width values per
// row), at most chunk rows per statement, in the sizes of rowChunks.
func (w *batchWriter) execRows(head, row, tail string, width, chunk int, args []any) error {
	for _, n := range rowChunks(len(args)/width, chunk) {
		if err := w.exec(head+valuesList(n, row)+tail, args[:n*width]...); err != nil {
			return err
		}
		args = args[n*width:]
	}
	return nil
}
