// Cache hints: the ttlMs and cacheScope of each result family
// (WithCacheHint).

package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// CacheKind names a family of results that carry cache hints.
type CacheKind uint8

// The cacheable result families.
const (
	// CacheDiscovery: server/discover.
	CacheDiscovery CacheKind = iota
	// CacheTools: tools/list.
	CacheTools
	// CachePrompts: prompts/list.
	CachePrompts
	// CacheResources: resources/list, resources/templates/list and
	// resources/read.
	CacheResources
	numCacheKinds
)

// WithCacheHint sets the ttlMs and cacheScope of one result family
// (2026-07-28). The default is 0 (stale at once) and private. Every page
// of a list carries the same hints. Mark a family public only when its
// results hold nothing user-specific: shared caches may then serve them
// to anyone, authorization filtering notwithstanding.
func WithCacheHint(kind CacheKind, ttl time.Duration, scope mcp.CacheScope) Option {
	return optionFunc(func(b *builder) error {
		if kind >= numCacheKinds {
			return fmt.Errorf("dispatch: unknown cache kind %d", kind)
		}
		if ttl < 0 {
			return errors.New("dispatch: cache TTL must not be negative")
		}
		if scope != mcp.CachePrivate && scope != mcp.CachePublic {
			return fmt.Errorf("dispatch: cache scope %q must be private or public", scope)
		}
		b.rt.cache[kind] = cacheHint{ttlMs: ttl.Milliseconds(), scope: scope}
		return nil
	})
}

// cacheHint is the ttlMs and cacheScope of one result family.
type cacheHint struct {
	ttlMs int64
	scope mcp.CacheScope
}

func (rt *Runtime) cacheHint(k CacheKind) (int64, string) {
	h := rt.cache[k]
	if h.scope == "" {
		return h.ttlMs, string(mcp.CachePrivate)
	}
	return h.ttlMs, string(h.scope)
}

// serverInfoMeta returns the result _meta: the handler's own keys plus
// io.modelcontextprotocol/serverInfo. Without handler keys it is encoded
// once per Runtime.
func (rt *Runtime) serverInfoMeta(user map[string]any) json.RawMessage {
	if len(user) == 0 {
		return rt.infoMeta
	}
	m := maps.Clone(user)
	m[mcp.MetaServerInfo] = rt.info
	b, err := jsonwire.Marshal(m)
	if err != nil {
		rt.logger.Warn("snodo: result _meta is not encodable; sending serverInfo only", "error", err)
		return rt.infoMeta
	}
	return b
}
