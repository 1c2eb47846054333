// The request _meta the protocol defines: version, client capabilities and
// info, log level, progress token.

package dispatch

import (
	"encoding/json"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// wireRequestMeta is the part of a request's _meta the protocol defines.
type wireRequestMeta struct {
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
	LogLevel           json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
}

// logLevels are the syslog levels of the protocol's LoggingLevel.
var logLevels = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// parseProgressToken applies the id bounds to a progress token.
func parseProgressToken(raw []byte) (jsonrpc.ID, *jsonrpc.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	tok, err := rpcwire.ParseID(raw)
	if err != nil {
		return jsonrpc.ID{}, invalidParams("Invalid params: progressToken must be a string of at most 256 bytes or a 64-bit integer")
	}
	return tok, nil
}

// parseClientCapabilities decodes a capabilities object; anything that is
// not an object of the declared shapes is -32602.
func parseClientCapabilities(raw []byte) (mcp.ClientCapabilities, *jsonrpc.Error) {
	var caps mcp.ClientCapabilities
	if len(raw) == 0 || raw[0] != '{' {
		return caps, invalidParams("Invalid params: clientCapabilities must be an object")
	}
	if err := jsonwire.Unmarshal(raw, &caps); err != nil {
		return caps, invalidParams("Invalid params: malformed clientCapabilities")
	}
	return caps, nil
}

// parseClientInfo decodes an Implementation that needs name and version.
func parseClientInfo(raw []byte) (*mcp.Implementation, *jsonrpc.Error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var info mcp.Implementation
	if raw[0] != '{' || jsonwire.Unmarshal(raw, &info) != nil || info.Name == "" || info.Version == "" {
		return nil, invalidParams("Invalid params: clientInfo must be an object with name and version")
	}
	return &info, nil
}

func parseLogLevel(raw []byte) (string, *jsonrpc.Error) {
	if len(raw) == 0 {
		return "", nil
	}
	lvl, ok := jsonwire.Unquote(raw)
	if _, known := logLevels[lvl]; !ok || !known {
		return "", invalidParams("Invalid params: unknown log level")
	}
	return lvl, nil
}
