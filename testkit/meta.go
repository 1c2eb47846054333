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

// LegacyRequest encodes an initialize-era request frame: no _meta is
// added, as those revisions negotiate once with initialize. params may be
// nil.
func LegacyRequest(id any, method string, params map[string]any) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return b
}

// Initialize encodes an initialize request asking for version with the
// given client capabilities (nil means none).
func Initialize(id any, version string, capabilities map[string]any) []byte {
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	return LegacyRequest(id, "initialize", map[string]any{
		"protocolVersion": version, "capabilities": capabilities,
		"clientInfo": map[string]any{"name": "snodo-testkit", "version": "0"},
	})
}

// Response encodes a client's response to a server-to-client request:
// the result when errorCode is 0, else an error with that code.
func Response(id json.RawMessage, result any, errorCode int64) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if errorCode != 0 {
		msg["error"] = map[string]any{"code": errorCode, "message": "refused by the test client"}
	} else {
		msg["result"] = result
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return b
}
