package client

// The client's bounded cache of list results, kept within their ttlMs.

import (
	"container/list"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// Cache bounds.
const (
	defaultCacheEntries = 256
	defaultCacheBytes   = 16 << 20
)

// Cache holds cacheable results (server/discover, the lists and
// resources/read on 2026-07-28) for as long as their ttlMs allows, least
// recently used first out when a bound is reached. Results marked public
// are shared by every client of the same server; private ones only by
// clients with the same identity (see WithCache). Change notifications
// drop the entries they concern. Results of multi round-trip retries and
// results without ttlMs (or with ttlMs 0) are never stored. It is safe for
// concurrent use. The zero value is ready to use; share a *Cache, do not
// copy it.
type Cache struct {
	// MaxEntries bounds the results held (default 256 when not positive).
	MaxEntries int
	// MaxBytes bounds their size in bytes (default 16 MiB when not
	// positive).
	MaxBytes int

	mu      sync.Mutex
	bytes   int
	lru     *list.List // front: most recently used; nil until first used
	entries map[cacheKey]*list.Element
	now     func() time.Time // nil: time.Now
}

type cacheKey struct {
	server, identity, method, arg string
}

type cacheEntry struct {
	key     cacheKey
	raw     json.RawMessage
	expires time.Time
}

// bounds returns the entry and byte bounds in effect.
func (k *Cache) bounds() (entries, bytes int) {
	entries, bytes = k.MaxEntries, k.MaxBytes
	if entries <= 0 {
		entries = defaultCacheEntries
	}
	if bytes <= 0 {
		bytes = defaultCacheBytes
	}
	return entries, bytes
}

// clock returns the current time (k.mu held).
func (k *Cache) clock() time.Time {
	if k.now == nil {
		return time.Now()
	}
	return k.now()
}

// len returns the number of results held.
func (k *Cache) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}

func (k *Cache) get(key cacheKey) (json.RawMessage, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	el, ok := k.entries[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !k.now().Before(e.expires) {
		k.remove(el)
		return nil, false
	}
	k.lru.MoveToFront(el)
	return e.raw, true
}

func (k *Cache) put(key cacheKey, raw json.RawMessage, ttl time.Duration) {
	maxEntries, maxBytes := k.bounds()
	if ttl <= 0 || len(raw) > maxBytes {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.lru == nil {
		k.lru, k.entries = list.New(), map[cacheKey]*list.Element{}
	}
	if el, ok := k.entries[key]; ok {
		k.remove(el)
	}
	e := &cacheEntry{key: key, raw: raw, expires: k.clock().Add(ttl)}
	k.entries[key] = k.lru.PushFront(e)
	k.bytes += len(raw)
	for len(k.entries) > maxEntries || k.bytes > maxBytes {
		k.remove(k.lru.Back())
	}
}

func (k *Cache) remove(el *list.Element) {
	e := k.lru.Remove(el).(*cacheEntry)
	delete(k.entries, e.key)
	k.bytes -= len(e.raw)
}

// invalidate drops a server's entries for which drop returns true.
func (k *Cache) invalidate(server string, drop func(method, arg string) bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for key, el := range k.entries {
		if key.server == server && drop(key.method, key.arg) {
			k.remove(el)
		}
	}
}

// cacheKeys returns the public and private keys of a request. The
// negotiated revision is part of the server key: result shapes differ.
func (c *Client) cacheKeys(r *request) (public, private cacheKey) {
	server := c.cacheServer + "\x00" + c.negotiated()
	public = cacheKey{server: server, identity: "\x00public", method: r.method, arg: r.cacheArg}
	private = cacheKey{server: server, identity: c.cfg.cacheIdentity, method: r.method, arg: r.cacheArg}
	return public, private
}

func (c *Client) cacheGet(r *request) (json.RawMessage, bool) {
	if c.cache == nil || r.inputRound || r.progress != nil {
		return nil, false
	}
	pub, priv := c.cacheKeys(r)
	if raw, ok := c.cache.get(priv); ok {
		return raw, true
	}
	return c.cache.get(pub)
}

func (c *Client) cachePut(r *request, raw json.RawMessage) {
	if c.cache == nil {
		return
	}
	var ttlMs *int64
	if ttl, ok := jsonwire.Member(raw, "ttlMs"); !ok || jsonwire.Unmarshal(ttl, &ttlMs) != nil || ttlMs == nil {
		return
	}
	scope, _ := jsonwire.Member(raw, "cacheScope")
	pub, priv := c.cacheKeys(r)
	key := priv
	if s, _ := jsonwire.Unquote(scope); mcp.CacheScope(s) == mcp.CachePublic {
		key = pub
	}
	c.cache.put(key, append(json.RawMessage(nil), raw...), time.Duration(*ttlMs)*time.Millisecond)
}

// invalidate drops the cached results a change notification concerns.
func (c *Client) invalidate(ev Event) {
	if c.cache == nil {
		return
	}
	server := c.cacheServer + "\x00" + c.negotiated()
	switch ev.Method {
	case "notifications/tools/list_changed":
		c.cache.invalidate(server, func(m, _ string) bool { return m == "tools/list" })
		c.toolsMu.Lock()
		clear(c.tools)
		c.toolsMu.Unlock()
	case "notifications/prompts/list_changed":
		c.cache.invalidate(server, func(m, _ string) bool { return m == "prompts/list" })
	case "notifications/resources/list_changed":
		c.cache.invalidate(server, func(m, _ string) bool { return m == "resources/list" || m == "resources/templates/list" })
	case "notifications/resources/updated":
		// The URI may be a sub-resource of one read (or the other way
		// round), so related URIs go too.
		c.cache.invalidate(server, func(m, arg string) bool {
			return m == "resources/read" && (arg == ev.URI || related(arg, ev.URI) || related(ev.URI, arg))
		})
	}
}

// related reports whether child lies under parent.
func related(parent, child string) bool {
	if parent == "" || len(child) <= len(parent) || !strings.HasPrefix(child, parent) {
		return false
	}
	return strings.HasSuffix(parent, "/") || child[len(parent)] == '/'
}
