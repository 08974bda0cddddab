package social

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// CheckJSONText checks every string of a JSON document, object keys and
// values at any depth, with CheckText, as the decoder reads them (it reads
// invalid UTF-8 as U+FFFD, so a \u0000 escape is what it finds). field
// names the member of the top-level object the refused string sits in; it
// is "" for a key of the top-level object (the error then names the key)
// and for a document that is not an object. A document that is not JSON
// passes: its decoding answers it.
func CheckJSONText(doc []byte) (field string, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return "", nil
	}
	if tok != json.Delim('{') {
		return "", checkJSONValue(dec, tok)
	}
	for dec.More() {
		if tok, err = dec.Token(); err != nil {
			return "", nil
		}
		field, _ = tok.(string)
		if err := CheckText(field); err != nil {
			return "", fmt.Errorf("field name %q %w", field, err)
		}
		if tok, err = dec.Token(); err != nil {
			return "", nil
		}
		if err := checkJSONValue(dec, tok); err != nil {
			return field, err
		}
	}
	return "", nil
}

// checkJSONValue checks the strings of the JSON value that starts with
// tok, reading the rest of it from dec; a syntax error ends the check.
func checkJSONValue(dec *json.Decoder, tok json.Token) error {
	for depth := 0; ; {
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if err := CheckText(t); err != nil {
				return err
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = dec.Token(); err != nil {
			return nil
		}
	}
}
