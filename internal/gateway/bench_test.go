package gateway

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkPage compares one timeline page served from the gateway's
// cache with the same page served from local data by a plain roost (both
// on SQLite, both authenticated and billed with a durable debit), one
// request of each in turn so that both see the same machine, and reports
// the time of each and their ratio (the gateway's over the local one's).
func BenchmarkPage(b *testing.B) {
	up := sharedUpstream(b)
	path := userPath(up.sum.Examples.UserID, "tweets")
	f := newFront(b, up, openSQLite(b, filepath.Join(b.TempDir(), "gw.db")))
	defer f.store.Close()
	gwKey, _ := newKey(f.store, 1_000_000*1_000_000)
	localKey, _ := newKey(up.store, 1_000_000*1_000_000)
	if code, body := get(f.h, gwKey, path); code != http.StatusOK {
		b.Fatal(code, body)
	}
	var gw, local time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if code, _ := get(f.h, gwKey, path); code != http.StatusOK {
			b.Fatal(code)
		}
		mid := time.Now()
		if code, _ := get(up.h, localKey, path); code != http.StatusOK {
			b.Fatal(code)
		}
		gw, local, n = gw+mid.Sub(start), local+time.Since(mid), n+1
	}
	b.ReportMetric(float64(gw.Nanoseconds())/float64(n), "gateway-ns/page")
	b.ReportMetric(float64(local.Nanoseconds())/float64(n), "local-ns/page")
	b.ReportMetric(float64(gw)/float64(local), "gateway/local")
}
