package gateway

import (
	"net/http"
	"path/filepath"
	"testing"
)

// BenchmarkPage compares one timeline page served from the gateway's
// cache with the same page served from local data by a plain roost (both
// on SQLite, both authenticated and billed).
func BenchmarkPage(b *testing.B) {
	up := sharedUpstream(b)
	path := userPath(up.sum.Examples.UserID, "tweets")
	b.Run("gateway-cached", func(b *testing.B) {
		f := newFront(b, up, openSQLite(b, filepath.Join(b.TempDir(), "gw.db")))
		defer f.store.Close()
		key, _ := newKey(f.store, 1_000_000*1_000_000)
		if code, body := get(f.h, key, path); code != http.StatusOK {
			b.Fatal(code, body)
		}
		for b.Loop() {
			if code, _ := get(f.h, key, path); code != http.StatusOK {
				b.Fatal(code)
			}
		}
	})
	b.Run("local", func(b *testing.B) {
		key, _ := newKey(up.store, 1_000_000*1_000_000)
		for b.Loop() {
			if code, _ := get(up.h, key, path); code != http.StatusOK {
				b.Fatal(code)
			}
		}
	})
}
