// This file builds the frames a 2026-07-28 client sends.

package testkit

import (
	"encoding/json"
	"maps"

	"github.com/snodo-go/snodo/mcp"
)

// defaultVersion is the protocol revision the helpers speak unless told
// otherwise.
const defaultVersion = mcp.Version20260728

// meta returns the _meta a 2026-07-28 request must carry, declaring no
// client capabilities.
func meta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    defaultVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "snodo-testkit", "version": "0"},
	}
}

// withMeta returns a copy of params with meta() merged into its _meta
// (keys already present win).
func withMeta(params map[string]any) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	m := meta()
	if own, ok := p["_meta"].(map[string]any); ok {
		maps.Copy(m, own)
	}
	p["_meta"] = m
	return p
}

// Request encodes a 2026-07-28 request frame (no trailing newline) with
// _meta filled in. id may be an int, an int64 or a string.
func Request(id any, method string, params map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": withMeta(params)})
	if err != nil {
		panic(err)
	}
	return b
}

// Notification encodes a notification frame.
func Notification(method string, params map[string]any) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return b
}
