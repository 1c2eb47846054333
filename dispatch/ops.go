// The core operations (discovery, tools), revision-neutral: each dialect
// shapes their results for its wire.

package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// The core operations are revision-neutral: they return neutral results
// that each dialect shapes for its wire.

// discoverResult is the neutral result of server/discover.
type discoverResult struct {
	versions     []string
	capabilities mcp.ServerCapabilities
	instructions string
}

// listToolsResult is the neutral result of tools/list.
type listToolsResult struct {
	tools      []mcp.Tool
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

func opToolsList(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	snap := rt.catalog.snapshot()
	visible := filter(ctx, rt, c, snap, snap.toolList, KindTool, func(e *toolEntry) string { return e.tool.Name })
	page, next, err := pageOf(rt, c, visible, func(e *toolEntry) string { return e.tool.Name })
	if err != nil {
		return nil, err
	}
	tools := make([]mcp.Tool, len(page))
	for i, e := range page {
		tools[i] = e.tool
	}
	return &listToolsResult{tools: tools, nextCursor: next}, nil
}

type callToolParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`

	// name holds what Name points to when the one-pass reader found it,
	// so the name costs no allocation of its own.
	name string
}

// toolsCallState is what a tools/call allocates for itself, in one
// allocation: its params and the request handed to the handler.
type toolsCallState struct {
	p   callToolParams
	req CallToolRequest
}

var emptyObject = json.RawMessage(`{}`)

// decodeToolCallParams reads a tools/call's name and arguments from the
// members of params (tm, when it indexes them; found now otherwise),
// without decoding the rest (_meta above all, which json-iterator would
// walk key by key, allocating each one). Anything unusual (an escaped or
// repeated key, a name that is not a string) goes through decodeParams, so
// results and errors are the same as its.
func decodeToolCallParams(params []byte, tm *toolMembers, p *callToolParams) error {
	if len(params) == 0 {
		return nil
	}
	var name, args []byte
	if tm != nil && tm.indexes(params) {
		name, args = tm.name.in(params), tm.arguments.in(params)
	} else {
		pm := indexParams(params)
		if !pm.object || pm.escaped || pm.repeated {
			return decodeParams(params, p)
		}
		name, _ = pm.name.in(params)
		args, _ = pm.arguments.in(params)
	}
	switch {
	case name == nil || string(name) == "null":
	case name[0] == '"':
		s, ok := jsonwire.UnquoteInterned(name)
		if !ok {
			return decodeParams(params, p)
		}
		p.name = s
		p.Name = &p.name
	default:
		return decodeParams(params, p) // not a string: its error
	}
	if args != nil && string(args) != "null" {
		// A copy, as decoding gave: the handler owns its arguments.
		p.Arguments = bytes.Clone(args)
	}
	return nil
}

// toolArguments returns a tools/call's arguments object ({} when absent
// or null), or the -32602 for anything else.
func toolArguments(args json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	switch {
	case len(args) == 0 || string(args) == "null":
		return emptyObject, nil
	case args[0] != '{':
		return nil, invalidParams("Invalid params: arguments: expected object")
	}
	return args, nil
}

func unknownTool(name string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + name}).WithData(map[string]any{"name": name})
}

func opToolsCall(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	st := &toolsCallState{}
	p := &st.p
	if err := decodeToolCallParams(c.Params, &c.params, p); err != nil {
		return nil, err
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Invalid params: tools/call needs a tool name")
	}
	args, jerr := toolArguments(p.Arguments)
	if jerr != nil {
		return nil, jerr
	}
	entry, ok := rt.catalog.snapshot().tools[*p.Name]
	if !ok {
		return nil, unknownTool(*p.Name)
	}
	if err := rt.authorizeUse(ctx, c, KindTool, *p.Name, "", func() *jsonrpc.Error { return unknownTool(*p.Name) }); err != nil {
		return nil, err
	}
	if bad, jerr := checkToolArguments(entry, args); bad != nil || jerr != nil {
		if jerr != nil {
			return nil, jerr
		}
		return bad, nil
	}
	if res, handled, err := rt.interceptToolCall(ctx, c, entry, *p.Name, args); handled {
		return res, err
	}
	st.req = CallToolRequest{Name: *p.Name, Arguments: args, Info: &c.Info, Input: c.Input}
	res, err := rt.callTool(ctx, entry, &st.req)
	if err != nil {
		var ir *InputRequired
		var je *jsonrpc.Error
		var se *serverError
		switch {
		case errors.As(err, &ir):
			return rt.inputRequired(c, ir)
		case errors.As(err, &je):
			return nil, je
		case errors.As(err, &se):
			return nil, rt.internal(c, "tool "+*p.Name, err)
		}
		return mcp.ErrorResult(err.Error()), nil
	}
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if entry.output != nil && !res.IsError {
		if err := checkStructured(entry, res); err != nil {
			return nil, rt.internal(c, "tool "+*p.Name+" output", err)
		}
	}
	return res, nil
}

// checkToolArguments validates arguments against the tool's input schema:
// a failure is an isError result naming the path and keyword.
func checkToolArguments(entry *toolEntry, args json.RawMessage) (*mcp.CallToolResult, *jsonrpc.Error) {
	if entry.anyObject || entry.flat != nil && entry.flat.valid(args) {
		return nil, nil
	}
	value, err := toJSONValue(args)
	if err != nil {
		return nil, invalidParams("Invalid params: arguments: not valid JSON")
	}
	if err := entry.input.Validate(value); err != nil {
		return mcp.ErrorResult(entry.inputWhy.explain("arguments", value, err)), nil
	}
	return nil, nil
}

// checkStructured validates a result's structuredContent against the
// tool's output schema: a tool that declares one must keep to it.
func checkStructured(e *toolEntry, res *mcp.CallToolResult) error {
	if res.StructuredContent == nil {
		return errors.New("the tool declares an output schema but returned no structuredContent")
	}
	b, err := jsonwire.API.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	v, err := toJSONValue(b)
	if err != nil {
		return err
	}
	if err := e.output.Validate(v); err != nil {
		return errors.New("output schema: " + e.outputWhy.explain("structuredContent", v, err))
	}
	return nil
}

// callbackError maps an error from an application callback other than a
// tool handler: a *jsonrpc.Error is sent as is, anything else is logged
// and answered with -32603. An *InputRequired reaching here came from a
// method that may not ask for input.
func (rt *Runtime) callbackError(c *Call, err error) error {
	var ir *InputRequired
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &ir):
		return rt.internal(c, "input_required", errors.New("only tools/call, resources/read and prompts/get may ask for input"))
	case errors.As(err, &je):
		return je
	}
	return rt.internal(c, "callback", err)
}

// decodeParams decodes a params object into v; a type mismatch is -32602.
func decodeParams(params []byte, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := jsonwire.Unmarshal(params, v); err != nil {
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
