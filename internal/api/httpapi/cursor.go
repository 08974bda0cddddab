package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"net/url"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// A cursor is base64url (no padding) of
//
//	version byte | varint Sort | varint ID | checksum (8 bytes)
//
// where checksum = SHA-256(scope || version..ID)[:8] and the scope names the
// endpoint and its parameters (path id, search query, order). A garbled,
// tampered or foreign cursor (another endpoint, user or query) fails the
// checksum. The checksum is not a secret: it catches mistakes, not forgery,
// and a forged cursor is only another keyset position of the same results.
//
// A cursor that counts pages (a Latest search under a fault plan's
// latest_cursor_pages) is version 2, with a varint page number (the page
// that issued it, >= 1) after the ID.

const (
	cursorVersion  = 1
	cursorCounted  = 2
	checksumLen    = 8
	maxCursorBytes = 1 + 3*binary.MaxVarintLen64 + checksumLen
	maxCursorText  = 3 * maxCursorBytes // generous for URL-encoded forms
)

var errBadCursor = errors.New("invalid cursor")

// cursorScope names the results a cursor belongs to.
func cursorScope(parts ...string) []byte {
	return []byte(strings.Join(parts, "\x00"))
}

// encodeCursor writes the keyset position k of the results named by scope.
func encodeCursor(scope []byte, k social.Key) string { return encodePageCursor(scope, k, 0) }

// encodePageCursor writes k and, when page > 0, the number of the page
// that issued it.
func encodePageCursor(scope []byte, k social.Key, page int) string {
	b := make([]byte, 0, maxCursorBytes)
	b = append(b, cursorVersion)
	b = binary.AppendVarint(b, k.Sort)
	b = binary.AppendVarint(b, k.ID)
	if page > 0 {
		b[0] = cursorCounted
		b = binary.AppendVarint(b, int64(page))
	}
	sum := checksum(scope, b)
	b = append(b, sum[:]...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor issued for scope, raw or URL-encoded (once
// more than the query string already was), with or without base64 padding.
func decodeCursor(scope []byte, s string) (social.Key, error) {
	k, _, err := decodePageCursor(scope, s)
	return k, err
}

// decodePageCursor reads a cursor and the number of the page that issued
// it (0 when it does not count pages).
func decodePageCursor(scope []byte, s string) (social.Key, int, error) {
	if len(s) == 0 || len(s) > maxCursorText {
		return social.Key{}, 0, errBadCursor
	}
	if strings.IndexByte(s, '%') >= 0 {
		u, err := url.QueryUnescape(s)
		if err != nil {
			return social.Key{}, 0, errBadCursor
		}
		s = u
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(b) < 1+2+checksumLen || (b[0] != cursorVersion && b[0] != cursorCounted) {
		return social.Key{}, 0, errBadCursor
	}
	payload, sum := b[:len(b)-checksumLen], b[len(b)-checksumLen:]
	want := checksum(scope, payload)
	if string(sum) != string(want[:]) {
		return social.Key{}, 0, errBadCursor
	}
	rest := payload[1:]
	next := func() (int64, bool) {
		v, n := binary.Varint(rest)
		rest = rest[max(n, 0):]
		return v, n > 0
	}
	sortKey, ok1 := next()
	id, ok2 := next()
	page := int64(0)
	ok3 := true
	if payload[0] == cursorCounted {
		page, ok3 = next()
		ok3 = ok3 && page >= 1 && page <= math.MaxInt32
	}
	// Every keyset position is of an entity, whose id is positive.
	if !ok1 || !ok2 || !ok3 || len(rest) != 0 || id < 1 {
		return social.Key{}, 0, errBadCursor
	}
	return social.Key{Sort: sortKey, ID: id}, int(page), nil
}

func checksum(scope, payload []byte) [checksumLen]byte {
	h := sha256.New()
	h.Write(scope)
	h.Write(payload)
	var full [sha256.Size]byte
	var out [checksumLen]byte
	copy(out[:], h.Sum(full[:0]))
	return out
}
