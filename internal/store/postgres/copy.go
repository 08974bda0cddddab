package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// copyHeader starts PostgreSQL's binary COPY format: the signature, no
// flags, no header extension.
const copyHeader = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// copyRows encodes rows in PostgreSQL's binary COPY format for the columns
// of spec (names and types), every value by its column's SQL type: what
// pgx's CopyFrom does, without its per-value type lookups, which cost more
// than a post's whole row here. Rows are [][]any as upsertSpec.run takes
// them (a nil value is NULL). A value whose Go type does not fit its column
// is an error.
func copyRows(spec *upsertSpec, ncols int, rows [][]any) ([]byte, error) {
	size := len(copyHeader) + 2
	for _, r := range rows {
		size += 2 + 4*len(r)
		for _, v := range r {
			if s, ok := v.(string); ok {
				size += len(s)
			} else {
				size += 8
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, copyHeader...)
	for _, r := range rows {
		if len(r) != ncols {
			return nil, fmt.Errorf("copy into %s: a row of %d values for %d columns", spec.table, len(r), ncols)
		}
		b = binary.BigEndian.AppendUint16(b, uint16(ncols))
		for i, v := range r {
			var err error
			if b, err = appendValue(b, spec.cols[i].typ, v); err != nil {
				return nil, fmt.Errorf("copy into %s: column %s: %w", spec.table, spec.cols[i].name, err)
			}
		}
	}
	return binary.BigEndian.AppendUint16(b, math.MaxUint16), nil // -1: the end
}

// appendValue appends one field: its length (-1 for NULL) and v in the
// binary format of SQL type typ.
func appendValue(b []byte, typ string, v any) ([]byte, error) {
	if v == nil {
		return appendNull(b), nil
	}
	switch typ {
	case "bigint":
		switch v := v.(type) {
		case int64:
			return appendInt8(b, v), nil
		case int:
			return appendInt8(b, int64(v)), nil
		case int32:
			return appendInt8(b, int64(v)), nil
		case *int64:
			return appendInt8Ptr(b, v), nil
		}
	case "text":
		if s, ok := v.(string); ok {
			return appendText(b, s)
		}
	case "boolean":
		if t, ok := v.(bool); ok {
			return appendBool(b, t), nil
		}
	case "tsvector":
		if t, ok := v.(pgtype.TSVector); ok {
			return appendTSVector(b, t)
		}
	default:
		return b, fmt.Errorf("no binary encoding for %s", typ)
	}
	return b, fmt.Errorf("%T for %s", v, typ)
}

func appendNull(b []byte) []byte { return binary.BigEndian.AppendUint32(b, math.MaxUint32) }

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func appendInt8Ptr(b []byte, v *int64) []byte {
	if v == nil {
		return appendNull(b)
	}
	return appendInt8(b, *v)
}

func appendBool(b []byte, v bool) []byte {
	b = binary.BigEndian.AppendUint32(b, 1)
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendText(b []byte, s string) ([]byte, error) {
	if len(s) > math.MaxInt32 {
		return b, fmt.Errorf("text of %d bytes", len(s))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...), nil
}

// appendTSVector appends a tsvector as tsvectorrecv reads it: the number of
// lexemes, then each lexeme NUL-terminated with its positions (weight D).
func appendTSVector(b []byte, t pgtype.TSVector) ([]byte, error) {
	if !t.Valid {
		return appendNull(b), nil
	}
	at := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the length, set below
	b = binary.BigEndian.AppendUint32(b, uint32(len(t.Lexemes)))
	for _, l := range t.Lexemes {
		if strings.IndexByte(l.Word, 0) >= 0 || len(l.Positions) > math.MaxUint16 {
			return b, fmt.Errorf("lexeme %q with %d positions", l.Word, len(l.Positions))
		}
		b = append(b, l.Word...)
		b = append(b, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(len(l.Positions)))
		for _, p := range l.Positions {
			b = binary.BigEndian.AppendUint16(b, p.Position&0x3fff)
		}
	}
	if len(b)-at-4 > math.MaxInt32 {
		return b, fmt.Errorf("tsvector of %d bytes", len(b)-at-4)
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b, nil
}

// appendPostRow appends the binary COPY row of p for the table columns of
// upsertPost, the same row as copyRows makes of postValues (entities as
// JSON, both vectors made in Go), without boxing each value.
func appendPostRow(b []byte, p *social.Post, views *int64, ent []byte, tsv, urlTSV pgtype.TSVector) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, 26)
	b = appendInt8(b, p.ID)
	b = appendInt8(b, p.AuthorID)
	b = appendInt8(b, sqlstore.Micros(p.CreatedAt))
	var err error
	for _, s := range []string{p.Text, p.Source} {
		if b, err = appendText(b, s); err != nil {
			return b, err
		}
	}
	b = appendBool(b, p.Truncated)
	if b, err = appendText(b, p.Lang); err != nil {
		return b, err
	}
	b = appendInt8(b, p.InReplyToID)
	b = appendInt8(b, p.InReplyToUserID)
	if b, err = appendText(b, p.InReplyToScreenName); err != nil {
		return b, err
	}
	for _, v := range [...]int64{p.QuotedID, p.RepostOfID, conversation(p), p.CommunityID, p.QuoteCount,
		p.ReplyCount, p.RetweetCount, p.FavoriteCount, p.BookmarkCount} {
		b = appendInt8(b, v)
	}
	b = appendInt8Ptr(b, views)
	b = appendInt8(b, social.Score(p))
	b = appendInt8(b, sqlstore.Flags(p))
	if len(ent) > math.MaxInt32 {
		return b, fmt.Errorf("entities of %d bytes", len(ent))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(ent)))
	b = append(b, ent...)
	if b, err = appendTSVector(b, tsv); err != nil {
		return b, err
	}
	if b, err = appendText(b, urlLines(&p.Entities)); err != nil {
		return b, err
	}
	return appendTSVector(b, urlTSV)
}

// copyTo runs COPY into table (the first ncols columns of spec) from rows
// in binary format, inside tx.
func copyTo(ctx context.Context, tx pgx.Tx, table string, spec *upsertSpec, ncols int, rows [][]any) error {
	data, err := copyRows(spec, ncols, rows)
	if err != nil {
		return err
	}
	names := spec.names()[:ncols]
	for i, n := range names {
		names[i] = pgx.Identifier{n}.Sanitize()
	}
	_, err = tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(data),
		"COPY "+pgx.Identifier{table}.Sanitize()+" ("+strings.Join(names, ", ")+") FROM STDIN (FORMAT binary)")
	return err
}
