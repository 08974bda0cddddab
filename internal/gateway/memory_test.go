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
	m.put("a", page(40, 0))
	m.put("b", page(40, 0))
	if _, ok := m.get("a"); !ok { // a is now the most recent
		t.Fatal("a is not kept")
	}
	m.put("c", page(40, 0)) // 120 bytes: b, the least recent, goes
	if _, ok := m.get("b"); ok {
		t.Error("b outlived the bound")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := m.get(k); !ok {
			t.Errorf("%s is not kept", k)
		}
	}
	m.put("a", page(10, -time.Minute)) // older: kept as it was
	if p, _ := m.get("a"); p.Items != 40 {
		t.Errorf("an older copy replaced a: %d items", p.Items)
	}
	m.put("a", page(10, time.Minute))
	if p, _ := m.get("a"); p.Items != 10 || m.size != 50 {
		t.Errorf("a newer copy: %d items, %d bytes held", p.Items, m.size)
	}
	m.put("now", ledger.Page{FetchedAt: time.Now()})
	if p, _ := m.get("now"); p.FetchedAt != p.FetchedAt.Round(0) {
		t.Error("a page keeps a monotonic clock reading: its age would not count a suspended host")
	}
	m.put("big", page(101, time.Hour))
	if _, ok := m.get("big"); ok || m.size != 50 {
		t.Errorf("a page above the bound is kept (%d bytes held)", m.size)
	}
}
