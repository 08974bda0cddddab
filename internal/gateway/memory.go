package gateway

import (
	"container/list"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
)

// memoryBytes bounds the pages a gateway keeps in memory besides its
// table (gateway_pages): the most recently used, by body size.
const memoryBytes = 32 << 20

// memory keeps recently served pages in memory, so that a cache hit needs
// no read of the table. A page is served from it under the same freshness
// as from the table; another replica's newer copy of a page in the table
// is read once the copy held here is no longer fresh. It holds pages for
// one value of the store's deletions counter (social.Versions.Deletions,
// read by each request): a deletion, by any process, moves it, and the
// first request that reads the new value empties the memory, as the
// deletion emptied the table.
type memory struct {
	mu        sync.Mutex
	max       int
	size      int
	deletions int64
	order     *list.List // of *memoryEntry, most recent first
	byKey     map[string]*list.Element
}

type memoryEntry struct {
	key  string
	page ledger.Page
}

func newMemory(max int) *memory {
	return &memory{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// sync empties the memory when deletions is newer than its pages' and
// reports whether pages of deletions may be read and put (never when it
// is unknown: negative).
func (m *memory) sync(deletions int64) bool {
	if deletions > m.deletions {
		m.order.Init()
		clear(m.byKey)
		m.size, m.deletions = 0, deletions
	}
	return deletions >= 0 && deletions == m.deletions
}

// get returns the page held under key for the deletions counter read.
func (m *memory) get(key string, deletions int64) (ledger.Page, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.sync(deletions) {
		return ledger.Page{}, false
	}
	e, ok := m.byKey[key]
	if !ok {
		return ledger.Page{}, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*memoryEntry).page, true
}

// put holds p under key (replacing an older copy) when deletions is the
// counter its pages are held for, and forgets the least recently used
// pages beyond the bound. A page larger than the bound is not held.
func (m *memory) put(key string, p ledger.Page, deletions int64) {
	// Wall time to the microsecond, as the table keeps it: a monotonic
	// reading would not age across a suspended host.
	p.FetchedAt = time.UnixMicro(p.FetchedAt.UnixMicro())
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.sync(deletions) {
		return
	}
	if e, ok := m.byKey[key]; ok {
		old := e.Value.(*memoryEntry)
		if !p.FetchedAt.After(old.page.FetchedAt) {
			return
		}
		m.size -= len(old.page.Body)
		m.order.Remove(e)
		delete(m.byKey, key)
	}
	if len(p.Body) > m.max {
		return
	}
	m.byKey[key] = m.order.PushFront(&memoryEntry{key: key, page: p})
	m.size += len(p.Body)
	for m.size > m.max {
		e := m.order.Back()
		old := e.Value.(*memoryEntry)
		m.size -= len(old.page.Body)
		m.order.Remove(e)
		delete(m.byKey, old.key)
	}
}
