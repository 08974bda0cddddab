package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
)

// TestUnreachable: failures of the connection or the server are marked
// social.ErrUnavailable (503); the statement's own errors, the caller's
// cancellation and a missing row are not.
func TestUnreachable(t *testing.T) {
	pg := func(code, severity string) error {
		return fmt.Errorf("postgres: query: %w", &pgconn.PgError{Code: code, Severity: severity, SeverityUnlocalized: severity})
	}
	for _, tc := range []struct {
		name        string
		err         error
		unreachable bool
		maybeSent   bool
	}{
		{"terminated backend", pg("57P01", "FATAL"), true, true},
		{"crash shutdown", pg("57P02", "FATAL"), true, true},
		{"starting up", pg("57P03", "FATAL"), true, true},
		{"too many connections", pg("53300", "FATAL"), true, true},
		{"read-only transaction (a standby)", pg("25006", "ERROR"), true, false},
		{"connection failure", pg("08006", "FATAL"), true, true},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true, true},
		{"EOF", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), true, true},
		{"closed conn", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true, true},
		{"unique violation", pg("23505", "ERROR"), false, false},
		{"query canceled", pg("57014", "ERROR"), false, false},
		{"syntax", pg("42601", "ERROR"), false, false},
		{"no rows", pgx.ErrNoRows, false, true},
		{"caller gone", fmt.Errorf("x: %w", context.Canceled), false, true},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false, true},
	} {
		if got := unreachable(tc.err); got != tc.unreachable {
			t.Errorf("%s: unreachable %v, want %v", tc.name, got, tc.unreachable)
		}
		if got := errors.Is(unavailable(tc.err), social.ErrUnavailable); got != tc.unreachable {
			t.Errorf("%s: marked unavailable %v, want %v", tc.name, got, tc.unreachable)
		}
		if got := maybeSent(tc.err); got != tc.maybeSent {
			t.Errorf("%s: maybeSent %v, want %v", tc.name, got, tc.maybeSent)
		}
	}
}

// TestRetryRead: a read whose connection failed before it handed on a row
// runs again, up to readTries; one that handed on a row, or failed for
// another reason, does not.
func TestRetryRead(t *testing.T) {
	lost := fmt.Errorf("x: %w", io.ErrUnexpectedEOF)
	for _, tc := range []struct {
		name      string
		fails     int // the first fails runs fail with err
		err       error
		delivered int
		runs      int
		ok        bool
	}{
		{"lost once", 1, lost, 0, 2, true},
		{"lost every time", 10, lost, 0, readTries, false},
		{"lost after a row", 10, lost, 1, 1, false},
		{"statement error", 10, errors.New("syntax"), 0, 1, false},
	} {
		runs := 0
		delivered := tc.delivered
		err := retryRead(context.Background(), &delivered, func() error {
			runs++
			if runs <= tc.fails {
				return tc.err
			}
			return nil
		})
		if runs != tc.runs || (err == nil) != tc.ok {
			t.Errorf("%s: %d runs, err %v; want %d runs, ok %v", tc.name, runs, err, tc.runs, tc.ok)
		}
		if err != nil && unreachable(tc.err) && !errors.Is(err, social.ErrUnavailable) {
			t.Errorf("%s: %v not marked unavailable", tc.name, err)
		}
	}
}
