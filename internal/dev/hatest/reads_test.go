package hatest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// checkReadsOffPrimary: after the failover, no --db-read connection of
// either replica (application_name roost-read) stays on the new primary:
// the standby that was promoted stops serving reads as a standby, and
// the read URLs connect to the standby that is left.
func checkReadsOffPrimary(t *testing.T, tp *topology) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, tp.db)
	if err != nil {
		t.Fatalf("connect to the new primary: %v", err)
	}
	defer conn.Close(context.Background())
	var reads int
	for {
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'roost-read'`).Scan(&reads)
		if err != nil {
			t.Fatalf("read the new primary's sessions: %v", err)
		}
		if reads == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Errorf("%d read-standby connections still on the new primary 30 s after the failover", reads)
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
	var port int
	if err := conn.QueryRow(ctx, `SELECT inet_server_port()`).Scan(&port); err != nil {
		t.Fatal(err)
	}
	t.Logf("no read-standby connection on the new primary (port %d)", port)
}
