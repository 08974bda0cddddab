package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
)

// TestMemory: pages are kept most recent first within the bound; a newer
// copy replaces an older one and never the reverse; a page larger than
// the bound is not kept.
func TestMemory(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	page := func(n int, d time.Duration) ledger.Page {
		return ledger.Page{Body: []byte(strings.Repeat("x", n)), Items: n, FetchedAt: at.Add(d)}
	}
	m := newMemory(100)
	m.put("a", page(40, 0), 0)
	m.put("b", page(40, 0), 0)
	if _, ok := m.get("a", 0); !ok { // a is now the most recent
		t.Fatal("a is not kept")
	}
	m.put("c", page(40, 0), 0) // 120 bytes: b, the least recent, goes
	if _, ok := m.get("b", 0); ok {
		t.Error("b outlived the bound")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := m.get(k, 0); !ok {
			t.Errorf("%s is not kept", k)
		}
	}
	m.put("a", page(10, -time.Minute), 0) // older: kept as it was
	if p, _ := m.get("a", 0); p.Items != 40 {
		t.Errorf("an older copy replaced a: %d items", p.Items)
	}
	m.put("a", page(10, time.Minute), 0)
	if p, _ := m.get("a", 0); p.Items != 10 || m.size != 50 {
		t.Errorf("a newer copy: %d items, %d bytes held", p.Items, m.size)
	}
	m.put("now", ledger.Page{FetchedAt: time.Now()}, 0)
	if p, _ := m.get("now", 0); p.FetchedAt != p.FetchedAt.Round(0) {
		t.Error("a page keeps a monotonic clock reading: its age would not count a suspended host")
	}
	m.put("big", page(101, time.Hour), 0)
	if _, ok := m.get("big", 0); ok || m.size != 50 {
		t.Errorf("a page above the bound is kept (%d bytes held)", m.size)
	}
	// A deletion moved the counter: nothing held before it is served, a
	// request that read the counter before it keeps nothing, and one that
	// does not know it reads and keeps nothing.
	if _, ok := m.get("a", 1); ok || m.size != 0 {
		t.Errorf("a page held before a deletion is served (%d bytes held)", m.size)
	}
	m.put("a", page(10, 2*time.Minute), 0)
	m.put("u", page(10, 2*time.Minute), -1)
	if _, ok := m.get("a", 1); ok || m.size != 0 {
		t.Error("a page fetched before a deletion is kept after it")
	}
	m.put("b", page(10, 0), 1)
	if _, ok := m.get("b", -1); ok {
		t.Error("a page is served to a request that does not know the deletions counter")
	}
	if _, ok := m.get("b", 1); !ok {
		t.Error("a page of the current counter is not kept")
	}
}
