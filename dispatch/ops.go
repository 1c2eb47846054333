package dispatch

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// The core operations are revision-neutral: they return neutral results
// that each Dialect shapes for its wire.

// discoverResult is the neutral result of server/discover.
type discoverResult struct {
	versions     []string
	capabilities ServerCapabilities
	instructions string
}

// listToolsResult is the neutral result of tools/list.
type listToolsResult struct {
	tools      []Tool
	nextCursor string
}

func opDiscover(_ context.Context, rt *Runtime, _ *Call) (any, error) {
	return &discoverResult{
		versions:     rt.registry.versions,
		capabilities: rt.capabilities,
		instructions: rt.instructions,
	}, nil
}

type listParams struct {
	Cursor *string `json:"cursor"`
}

func opToolsList(_ context.Context, rt *Runtime, c *Call) (any, error) {
	var p listParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if p.Cursor != nil && *p.Cursor != "" {
		return nil, invalidParams("Invalid pagination cursor")
	}
	return &listToolsResult{tools: rt.Tools()}, nil
}

type callToolParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

var emptyObject = json.RawMessage(`{}`)

func opToolsCall(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	var p callToolParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Invalid params: tools/call needs a tool name")
	}
	args := p.Arguments
	switch {
	case len(args) == 0 || string(args) == "null":
		args = emptyObject
	case args[0] != '{':
		return nil, invalidParams("Invalid params: arguments must be an object")
	}
	entry, ok := rt.tools[*p.Name]
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+*p.Name).WithData(map[string]any{"name": *p.Name})
	}
	res, err := entry.handler(ctx, &CallToolRequest{Name: *p.Name, Arguments: args, Info: &c.Info})
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, je
		}
		return ErrorResult(err.Error()), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	return res, nil
}

// decodeParams decodes a params object into v; a type mismatch is -32602.
func decodeParams(params []byte, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := jsonrpc.Unmarshal(params, v); err != nil {
		return invalidParams("Invalid params: " + trimDecodeError(err))
	}
	return nil
}

// trimDecodeError keeps the decoder's first clause and never echoes input
// values back to the client.
func trimDecodeError(err error) string {
	s := err.Error()
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i]
		}
	}
	return s
}
