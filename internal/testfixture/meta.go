// This file builds the frames of initialize-era clients and of a
// client's answers to server requests.

package testfixture

import (
	"encoding/json"

	"github.com/snodo-go/snodo/mcp"
)

// Version is the protocol revision the fixtures speak by default.
const Version = mcp.Version20260728

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
