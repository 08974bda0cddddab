package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/url"
	"strings"

	"github.com/roostapi/roost/social"
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

const (
	cursorVersion  = 1
	checksumLen    = 8
	maxCursorBytes = 1 + 2*binary.MaxVarintLen64 + checksumLen
	maxCursorText  = 3 * maxCursorBytes // generous for URL-encoded forms
)

var errBadCursor = errors.New("invalid cursor")

// cursorScope names the results a cursor belongs to.
func cursorScope(parts ...string) []byte {
	return []byte(strings.Join(parts, "\x00"))
}

// encodeCursor writes the keyset position k of the results named by scope.
func encodeCursor(scope []byte, k social.Key) string {
	b := make([]byte, 0, maxCursorBytes)
	b = append(b, cursorVersion)
	b = binary.AppendVarint(b, k.Sort)
	b = binary.AppendVarint(b, k.ID)
	sum := checksum(scope, b)
	b = append(b, sum[:]...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor issued for scope, raw or URL-encoded (once
// more than the query string already was), with or without base64 padding.
func decodeCursor(scope []byte, s string) (social.Key, error) {
	if len(s) == 0 || len(s) > maxCursorText {
		return social.Key{}, errBadCursor
	}
	if strings.IndexByte(s, '%') >= 0 {
		u, err := url.QueryUnescape(s)
		if err != nil {
			return social.Key{}, errBadCursor
		}
		s = u
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(b) < 1+2+checksumLen || b[0] != cursorVersion {
		return social.Key{}, errBadCursor
	}
	payload, sum := b[:len(b)-checksumLen], b[len(b)-checksumLen:]
	want := checksum(scope, payload)
	if string(sum) != string(want[:]) {
		return social.Key{}, errBadCursor
	}
	sortKey, n := binary.Varint(payload[1:])
	if n <= 0 {
		return social.Key{}, errBadCursor
	}
	id, m := binary.Varint(payload[1+n:])
	// Every keyset position is of an entity, whose id is positive.
	if m <= 0 || 1+n+m != len(payload) || id < 1 {
		return social.Key{}, errBadCursor
	}
	return social.Key{Sort: sortKey, ID: id}, nil
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
