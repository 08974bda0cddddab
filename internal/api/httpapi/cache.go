package httpapi

import (
	clist "container/list"
	"sync"

	"github.com/roostapi/roost/internal/social"
)

// DefaultPageCacheBytes is the size of the rendered-page cache unless
// Config.PageCacheBytes says otherwise.
const DefaultPageCacheBytes = 64 << 20

// pageCache keeps the bytes of paid pages (their 200 bodies and billed
// items) by request, for one content version of the store
// (social.Versions.Content): every data write moves that version, and the
// first request that reads a newer one empties the cache. An entry is put
// under the version read before its page was read, so it holds data at
// least as new as that version: never older than what a request that
// finds it could have read itself. Least recently used entries go first
// once the bytes held pass the bound.
type pageCache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	version int64
	entries map[string]*clist.Element // of *pageEntry
	lru     clist.List                // front: most recently used
}

type pageEntry struct {
	key   string
	body  []byte
	items int
}

// pageEntryOverhead is what an entry costs beyond its key and body bytes.
const pageEntryOverhead = 128

func newPageCache(maxBytes int64) *pageCache {
	if maxBytes <= 0 {
		return nil
	}
	return &pageCache{max: maxBytes, version: -1, entries: map[string]*clist.Element{}}
}

// sync empties the cache when version is newer than its entries' and
// reports whether entries of version may be read and put.
func (c *pageCache) sync(version int64) bool {
	if version > c.version {
		c.entries = map[string]*clist.Element{}
		c.lru.Init()
		c.size, c.version = 0, version
	}
	return version == c.version
}

// get returns the page kept for key under version.
func (c *pageCache) get(version int64, key string) (body []byte, items int, ok bool) {
	if c == nil || version < 0 {
		return nil, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(version) {
		return nil, 0, false
	}
	el, ok := c.entries[key]
	if !ok {
		return nil, 0, false
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*pageEntry)
	return e.body, e.items, true
}

// put keeps body (not copied: the caller must not change it) and its
// items for key under version, when version is still current.
func (c *pageCache) put(version int64, key string, body []byte, items int) {
	cost := int64(len(key) + len(body) + pageEntryOverhead)
	if c == nil || version < 0 || cost > c.max/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(version) {
		return
	}
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.lru.PushFront(&pageEntry{key: key, body: body, items: items})
	c.size += cost
	for c.size > c.max {
		el := c.lru.Back()
		e := el.Value.(*pageEntry)
		c.lru.Remove(el)
		delete(c.entries, e.key)
		c.size -= int64(len(e.key) + len(e.body) + pageEntryOverhead)
	}
}

// maxCachedKeys bounds the key cache; past it the cache starts again.
const maxCachedKeys = 10_000

// keyCache keeps live API keys by digest for one keys version of the
// store (social.Versions.Keys): every change of a key but a debit moves
// it (top-up, revocation, rotation, limit, fault plan), and a newer
// version empties the cache. A kept key's Balance is only a hint (debits
// do not move the version): the debit itself decides, and the balance
// endpoint reads the key afresh.
type keyCache struct {
	mu      sync.Mutex
	version int64
	keys    map[[32]byte]social.APIKey
}

func newKeyCache() *keyCache { return &keyCache{version: -1, keys: map[[32]byte]social.APIKey{}} }

// get returns the key kept for digest under version.
func (c *keyCache) get(version int64, digest [32]byte) (social.APIKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		return social.APIKey{}, false
	}
	k, ok := c.keys[digest]
	return k, ok
}

// put keeps k under version, emptying the cache first when version is
// newer than its keys'; a key read under an older version is not kept.
func (c *keyCache) put(version int64, k social.APIKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version > c.version || len(c.keys) >= maxCachedKeys {
		clear(c.keys)
		c.version = max(c.version, version)
	}
	if version == c.version {
		c.keys[k.Digest] = k
	}
}
