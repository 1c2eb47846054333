package dispatch

import (
	"encoding/json"
	"maps"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// CacheScope says who may reuse a cached result (2026-07-28).
type CacheScope string

const (
	// CachePrivate results may be reused only within the same
	// authorization context. It is the default.
	CachePrivate CacheScope = "private"
	// CachePublic results hold no user-specific data and may be shared.
	CachePublic CacheScope = "public"
)

// cacheKind names the result families that carry cache hints.
type cacheKind uint8

const (
	cacheDiscovery cacheKind = iota
	cacheTools
	cachePrompts
	cacheResources
	numCacheKinds
)

// cacheHint is the ttlMs and cacheScope of one result family.
type cacheHint struct {
	ttlMs int64
	scope CacheScope
}

func (rt *Runtime) cacheHint(k cacheKind) (int64, string) {
	h := rt.cache[k]
	if h.scope == "" {
		return h.ttlMs, string(CachePrivate)
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
	m[MetaServerInfo] = rt.info
	b, err := jsonrpc.Marshal(m)
	if err != nil {
		rt.logger.Warn("snodo: result _meta is not encodable; sending serverInfo only", "error", err)
		return rt.infoMeta
	}
	return b
}
