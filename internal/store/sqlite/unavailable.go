package sqlite

import (
	"errors"
	"fmt"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/roostapi/roost/internal/social"
)

// unavailable marks err with social.ErrUnavailable when SQLite could not
// do the work now rather than refusing it: SQLITE_BUSY or SQLITE_LOCKED
// (any of their extended codes), which surface when another process or
// connection held a lock longer than busy_timeout. The API answers those
// 503 with Retry-After instead of 500. Other errors are returned as they
// are.
func unavailable(err error) error {
	if err == nil {
		return nil // most calls: no error, and no allocation for errors.As's target
	}
	var se *msqlite.Error
	if !errors.As(err, &se) || errors.Is(err, social.ErrUnavailable) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %w", social.ErrUnavailable, err)
	}
	return err
}
