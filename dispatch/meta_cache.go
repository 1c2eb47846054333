// This file remembers the decoded _meta of recent 2026-07-28 requests, keyed
// by its raw bytes, so a client that sends the same _meta on every request
// has it decoded once.

package dispatch

import (
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/mcp"
)

// Bounds of a Runtime's _meta cache: how many distinct _meta objects it
// keeps, and the largest it keeps. When it is full it starts again empty,
// so a client that varies its _meta costs a decode per request, as without
// the cache, and never more memory than the bound.
const (
	metaCacheEntries  = 64
	metaCacheMaxBytes = 2048
)

// admittedMeta is what admission reads from a _meta object without a
// progress token, once it has been checked. Its values are shared by every
// request that sent the same bytes and are never changed.
type admittedMeta struct {
	version string
	caps    mcp.ClientCapabilities
	info    *mcp.Implementation // copied for each request
	level   string
}

// metaCache maps raw _meta bytes to their admittedMeta. Lookups read an
// immutable map without locking; an addition copies it under mu.
type metaCache struct {
	m  atomic.Pointer[map[string]*admittedMeta]
	mu sync.Mutex
}

// get returns the entry for raw, or nil.
func (c *metaCache) get(raw []byte) *admittedMeta {
	m := c.m.Load()
	if m == nil {
		return nil
	}
	return (*m)[string(raw)]
}

// put remembers e for raw when raw is small enough; a full cache is
// replaced by one holding only e.
func (c *metaCache) put(raw []byte, e *admittedMeta) {
	if len(raw) > metaCacheMaxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[string]*admittedMeta
	if old := c.m.Load(); old != nil && len(*old) < metaCacheEntries {
		next = make(map[string]*admittedMeta, len(*old)+1)
		for k, v := range *old {
			next[k] = v
		}
	} else {
		next = make(map[string]*admittedMeta, 1)
	}
	next[string(raw)] = e
	c.m.Store(&next)
}
