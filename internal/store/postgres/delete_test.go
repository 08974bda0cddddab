package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestDeletePlans: every statement of a deletion finds its rows by an
// index, as in package sqlite. With sequential scans made as dear as the
// planner allows, a plan still holds one only where no index serves.
func TestDeletePlans(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan") //nolint:errcheck // the connection goes back to a test's pool
	for _, st := range sqlstore.DeleteStatements() {
		rows, err := conn.Query(ctx, "EXPLAIN "+numbered(st.SQL), st.Args...)
		if err != nil {
			t.Fatalf("%s: %v", st.SQL, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, strings.TrimSpace(line))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", st.SQL, err)
		}
		if len(plan) == 0 || strings.Contains(strings.Join(plan, "\n"), "Seq Scan") {
			t.Errorf("%s\n  plan scans a table:\n  %s", strings.Join(strings.Fields(st.SQL), " "), strings.Join(plan, "\n  "))
		}
	}
}

// TestWriteWaitsForDeletion: a write that begins while a deletion is in
// progress waits for it to commit, then leaves out what it deleted: no
// write that read the tombstones before a deletion committed stores what
// the deletion names after it.
func TestWriteWaitsForDeletion(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	if _, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 1, ScreenName: "a"}}}); err != nil {
		t.Fatal(err)
	}
	// A deletion in progress: the lock held, its tombstone not committed.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := tx.Exec(ctx, deleter.Lock); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tombstones (kind, id, deleted_at) VALUES ('post', 7, 0)`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		st  social.WriteStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := s.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 7, AuthorID: 1, Text: "x"}}})
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the write did not wait for the deletion: %+v %v", r.st, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.st.PostsSkipped != 1 || r.st.PostsInserted != 0 {
		t.Fatalf("the write after the deletion: %+v %v", r.st, r.err)
	}
}
