package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
)

// unreachable reports whether err says that the database could not do the
// work, rather than that the statement was wrong: no answer from the
// server (connection refused, reset or closed), SQLSTATE class 08
// (connection exception), 57P01–57P03 (the server shutting down, a
// backend terminated by pg_terminate_backend, a server still starting),
// 53300 (too many connections) or 25006 (a read-only transaction: the
// connection reached a standby where the primary was needed, as it does
// while a failover is under way). The caller's own cancellation and
// deadlines are not the database's doing.
func unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300", "25006":
			return true
		}
		return pe.Code[:2] == "08"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// unavailable marks err with social.ErrUnavailable when the database
// could not be reached (unreachable), so that the API answers 503 with
// Retry-After rather than 500; other errors are returned as they are.
func unavailable(err error) error {
	if !unreachable(err) || errors.Is(err, social.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", social.ErrUnavailable, err)
}

// readTries is how many times a read whose connection failed before it
// handed on a row is run, each time on a connection the pool gives anew
// (it drops a broken one, and pings one that sat idle before handing it
// out).
const readTries = 3

// retryRead runs read until it succeeds, fails for another reason than
// the connection, has handed on a row (delivered above 0), the caller is
// gone, or readTries runs failed; the last error is marked unavailable.
func retryRead(ctx context.Context, delivered *int, read func() error) error {
	var err error
	for try := 0; try < readTries; try++ {
		err = read()
		if !unreachable(err) || *delivered > 0 || ctx.Err() != nil {
			break
		}
	}
	return unavailable(err)
}
