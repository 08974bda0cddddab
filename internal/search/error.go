package search

import "fmt"

// Error is a query the parser rejects: Pos is the byte offset in the query
// where the problem is, Msg says what is wrong or what was expected. The
// HTTP layer serves it as a 422.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("at position %d: %s", e.Pos, e.Msg) }
