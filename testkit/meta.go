package testkit

import (
	"encoding/json"
	"maps"
)

// Version is the protocol revision the helpers speak by default.
const Version = "2026-07-28"

// Meta returns the _meta a 2026-07-28 request must carry, declaring no
// client capabilities.
func Meta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    Version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "snodo-testkit", "version": "0"},
	}
}

// WithMeta returns a copy of params with Meta() merged into its _meta
// (keys already present win).
func WithMeta(params map[string]any) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	m := Meta()
	if own, ok := p["_meta"].(map[string]any); ok {
		maps.Copy(m, own)
	}
	p["_meta"] = m
	return p
}

// Request encodes a 2026-07-28 request frame (no trailing newline) with
// _meta filled in. id may be an int, an int64 or a string.
func Request(id any, method string, params map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": WithMeta(params)})
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
