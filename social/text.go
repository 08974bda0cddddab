package social

import (
	"strconv"

	"github.com/roostapi/roost/internal/storable"
)

// Problems a TextError names.
const (
	ProblemNUL  = "contains a NUL byte"
	ProblemUTF8 = "is not valid UTF-8"
)

// TextError is a text value that no store can hold. It is an ErrInvalid.
type TextError struct {
	Pos     int    // byte offset of the first offending byte
	Problem string // ProblemNUL or ProblemUTF8
}

func (e *TextError) Error() string { return e.Problem + " at byte " + strconv.Itoa(e.Pos) }

// Is makes every TextError match ErrInvalid.
func (e *TextError) Is(target error) bool { return target == ErrInvalid }

// CheckText returns a *TextError when s holds a NUL byte or is not valid
// UTF-8, else nil. PostgreSQL's text type cannot hold either (SQLSTATE
// 22021), and SQLite's LIKE patterns and FTS5 query strings end at a NUL,
// so every text input is checked once, where it enters (HTTP parameters
// and bodies, the admin API, command-line flags), before it reaches a
// store.
func CheckText(s string) error {
	pos, nul := storable.Find(s)
	switch {
	case pos < 0:
		return nil
	case nul:
		return &TextError{Pos: pos, Problem: ProblemNUL}
	}
	return &TextError{Pos: pos, Problem: ProblemUTF8}
}

// RepairText returns s with each NUL byte and each byte of an invalid
// UTF-8 sequence replaced by U+FFFD (as encoding/json decodes invalid
// UTF-8), so that any store can hold it; s itself when CheckText accepts
// it. Imports repair what they read this way.
func RepairText(s string) string { return storable.Repair(s) }
