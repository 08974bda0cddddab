package httpapi

import (
	"math"
	"net/url"
	"testing"

	"github.com/roostapi/roost/social"
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
