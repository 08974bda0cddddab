package httpapi

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/url"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func TestCursorRoundTrip(t *testing.T) {
	scope := cursorScope("user_tweets", "1")
	for _, k := range []social.Key{{Sort: 0, ID: 1}, {Sort: 1, ID: 1}, {Sort: -5, ID: 7}, {Sort: math.MaxInt64, ID: math.MaxInt64},
		{Sort: math.MinInt64, ID: 1}, {Sort: 1_717_000_000_000_000, ID: 1 << 62}} {
		c := encodeCursor(scope, k)
		for _, form := range []string{c, url.QueryEscape(c), c + "=", url.QueryEscape(c + "==")} {
			got, err := decodeCursor(scope, form)
			if err != nil || got != k {
				t.Errorf("decode(%q) = %v, %v; want %v", form, got, err, k)
			}
		}
		if _, err := decodeCursor(cursorScope("user_tweets", "2"), c); err == nil {
			t.Errorf("cursor of user 1 accepted for user 2")
		}
	}
	// Checksum-valid but of no entity: ids are positive.
	forged := []string{encodeCursor(scope, social.Key{Sort: 5, ID: math.MinInt64}), encodeCursor(scope, social.Key{ID: 0}),
		encodeCursor(scope, social.Key{Sort: math.MinInt64, ID: -1})}
	for _, bad := range append(forged, "", "null", "undefined", "AAAA", "%zz", "!!!!", "AQIDBAUGBwgJCgsM", string(make([]byte, 1000))) {
		if k, err := decodeCursor(scope, bad); err == nil {
			t.Errorf("decode(%q) = %v, want an error", bad, k)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	scope := cursorScope("search", "Latest", "from:x")
	f.Add(encodeCursor(scope, social.Key{Sort: 42, ID: 43}), int64(1), int64(2))
	f.Add("AeIE4gS433Yvu7vqOQ", int64(-1), int64(math.MaxInt64))
	f.Add("%41%65", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, s string, sortKey, id int64) {
		if k, err := decodeCursor(scope, s); err == nil {
			// Whatever decodes re-encodes to a cursor of the same key.
			if back, err := decodeCursor(scope, encodeCursor(scope, k)); err != nil || back != k {
				t.Fatalf("%q decoded to %v, which does not round-trip: %v, %v", s, k, back, err)
			}
		}
		k := social.Key{Sort: sortKey, ID: id}
		got, err := decodeCursor(scope, encodeCursor(scope, k))
		if id < 1 && err == nil {
			t.Fatalf("cursor of id %d accepted as %v", id, got)
		}
		if id >= 1 && (err != nil || got != k) {
			t.Fatalf("round trip of %v: %v, %v", k, got, err)
		}
	})
}

// TestPageCursor: a cursor that counts pages (latest_cursor_pages) gives
// back its key and page, is still a cursor of its scope only, and one
// whose page is not positive or that has bytes after it is refused.
func TestPageCursor(t *testing.T) {
	scope := cursorScope("search", "Latest", "from:alice")
	k := social.Key{Sort: 1_800_000_000_000_000_000, ID: 1_800_000_000_000_000_000}
	for _, page := range []int{1, 2, 127, 128, math.MaxInt32} {
		c := encodePageCursor(scope, k, page)
		got, gotPage, err := decodePageCursor(scope, c)
		if err != nil || got != k || gotPage != page {
			t.Errorf("page %d: %v %d %v", page, got, gotPage, err)
		}
		if plain, err := decodeCursor(scope, c); err != nil || plain != k {
			t.Errorf("page %d read as a plain cursor: %v %v", page, plain, err)
		}
		if _, _, err := decodePageCursor(cursorScope("search", "Latest", "from:bob"), c); err == nil {
			t.Errorf("page %d: a cursor of another query accepted", page)
		}
	}
	if _, page, err := decodePageCursor(scope, encodeCursor(scope, k)); err != nil || page != 0 {
		t.Errorf("a plain cursor counts page %d, %v", page, err)
	}
	// Version 2 with page 0 or -1, or a byte too many, under a valid checksum.
	for _, tail := range [][]byte{binary.AppendVarint(nil, 0), binary.AppendVarint(nil, -1), {2, 0}} {
		b := append([]byte{cursorCounted}, binary.AppendVarint(binary.AppendVarint(nil, k.Sort), k.ID)...)
		b = append(b, tail...)
		sum := checksum(scope, b)
		c := base64.RawURLEncoding.EncodeToString(append(b, sum[:]...))
		if got, page, err := decodePageCursor(scope, c); err == nil {
			t.Errorf("tail %v accepted: %v page %d", tail, got, page)
		}
	}
}
