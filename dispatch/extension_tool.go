// This file lets an extension take over a tools/call (the tasks extension
// answers with a task handle and runs the tool later): the hook it sees,
// and the detached run of the tool's handler it gets.

package dispatch

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// ToolCall is a tools/call as an extension's ToolCall hook sees it.
type ToolCall struct {
	// Tool is the tool's name.
	Tool string
	// Arguments are the call's arguments, already valid for the tool.
	Arguments json.RawMessage
	// Params is a copy of the request's params, what ResumeToolCall
	// needs to run the call again later.
	Params json.RawMessage
	// Info describes the request.
	Info *RequestInfo
	// Declared reports that the request declared the extension in its
	// client capabilities.
	Declared bool
	// HasInput reports that the call carries answers to input the tool
	// asked for (a multi round-trip retry).
	HasInput bool
	// Run runs the tool's handler, detached from the request: see
	// [ToolRun].
	Run ToolRun
}

// ToolRun runs a tool's handler once, under ctx (which carries no
// request: progress and log messages go nowhere), with in as its Input
// (nil: the call's own). It never panics: a panicking handler is a
// -32603 Error.
type ToolRun func(ctx context.Context, in *ToolInput) ToolOutcome

// ToolInput is the Input of a later run: the client's answers, keyed as
// the handler asked, and the state it returned.
type ToolInput struct {
	// Responses are the answers, by key.
	Responses map[string]json.RawMessage
	// State is what the handler's InputRequired carried.
	State []byte
}

// ToolOutcome is how a run ended: exactly one of Result, InputRequests or
// Error.
type ToolOutcome struct {
	// Result is the tool's result as 2026-07-28 sends it
	// (resultType "complete", content, structuredContent, isError).
	Result json.RawMessage
	// InputRequests are the handler's requests for input, by key, each
	// {"method", "params"}; State is what it asked to get back.
	InputRequests map[string]json.RawMessage
	// State is the opaque state the handler asked to get back with the
	// answers to InputRequests; nil otherwise.
	State []byte
	// Error is the JSON-RPC error the call failed with.
	Error *jsonrpc.Error
}

// interceptToolCall gives the tools/call extension its say; handled
// reports that it answered (with res or err).
func (rt *Runtime) interceptToolCall(ctx context.Context, c *Call, entry *toolEntry, name string, args json.RawMessage) (res any, handled bool, err error) {
	ext := rt.toolCallExt
	if ext == nil {
		return nil, false, nil
	}
	_, declared := c.Info.ClientCapabilities.Extensions[ext.ID]
	detached := *c
	detached.Params = append([]byte(nil), c.Params...)
	detached.Notifier, detached.Session = nil, nil
	call := &ToolCall{
		Tool: name, Arguments: append(json.RawMessage(nil), args...), Params: detached.Params,
		Info: &c.Info, Declared: declared && c.dialect != nil && c.dialect.Era() != eraSession,
		HasInput: c.Input != nil,
		Run:      rt.toolRun(&detached, entry, name, append(json.RawMessage(nil), args...)),
	}
	body, err := ext.ToolCall(ctx, call)
	switch {
	case err != nil:
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, true, je
		}
		return nil, true, rt.internal(c, "extension "+ext.ID+" on tools/call", err)
	case body == nil:
		return nil, false, nil
	case len(body) == 0 || body[0] != '{':
		return nil, true, rt.internal(c, "extension "+ext.ID+" on tools/call", errors.New("the result is not a JSON object"))
	}
	return &extensionResult{body: body}, true, nil
}

// toolRun returns the detached run of a tool's handler for call c.
func (rt *Runtime) toolRun(c *Call, entry *toolEntry, name string, args json.RawMessage) ToolRun {
	return func(ctx context.Context, in *ToolInput) (out ToolOutcome) {
		cc := *c
		if in != nil {
			cc.Input = &Input{responses: in.Responses, state: in.State, hasState: in.State != nil}
		}
		defer func() {
			if p := recover(); p != nil {
				out = ToolOutcome{Error: rt.internal(&cc, "tool "+name, &panicError{Value: p})}
			}
		}()
		res, err := rt.callTool(ctx, entry, &CallToolRequest{Name: name, Arguments: args, Info: &cc.Info, Input: cc.Input})
		if err != nil {
			var ir *InputRequired
			var je *jsonrpc.Error
			var se *serverError
			switch {
			case errors.As(err, &ir):
				return rt.outcomeOfInput(&cc, ir)
			case errors.As(err, &je):
				return ToolOutcome{Error: je}
			case errors.As(err, &se):
				return ToolOutcome{Error: rt.internal(&cc, "tool "+name, err)}
			}
			res = mcp.ErrorResult(err.Error())
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if entry.output != nil && !res.IsError {
			if err := checkStructured(entry, res); err != nil {
				return ToolOutcome{Error: rt.internal(&cc, "tool "+name+" output", err)}
			}
		}
		content := res.Content
		if content == nil {
			content = []mcp.Content{}
		}
		var meta json.RawMessage
		if res.Meta != nil {
			meta, _ = jsonwire.API.Marshal(res.Meta)
		}
		body, err := jsonwire.API.Marshal(&struct {
			ResultType        string          `json:"resultType"`
			Content           []mcp.Content   `json:"content"`
			StructuredContent any             `json:"structuredContent,omitempty"`
			IsError           bool            `json:"isError,omitempty"`
			Meta              json.RawMessage `json:"_meta,omitempty"`
		}{resultComplete, content, res.StructuredContent, res.IsError, meta})
		if err != nil {
			return ToolOutcome{Error: rt.internal(&cc, "encoding the result of tool "+name, err)}
		}
		return ToolOutcome{Result: body}
	}
}

// outcomeOfInput checks a handler's request for input and encodes it.
func (rt *Runtime) outcomeOfInput(c *Call, ir *InputRequired) ToolOutcome {
	if jerr := rt.checkInputRequired(c, ir); jerr != nil {
		return ToolOutcome{Error: jerr}
	}
	if len(ir.Requests) == 0 {
		return ToolOutcome{Error: rt.internal(c, "input_required", errors.New("a task's handler asked for input without a request"))}
	}
	reqs := make(map[string]json.RawMessage, len(ir.Requests))
	for k, r := range ir.Requests {
		b, err := jsonwire.API.Marshal(wireInputRequest{Method: r.Method(), Params: r})
		if err != nil {
			return ToolOutcome{Error: rt.internal(c, "encoding input request "+k, err)}
		}
		reqs[k] = b
	}
	return ToolOutcome{InputRequests: reqs, State: ir.State}
}

// ResumeToolCall rebuilds the run of a tools/call from the params an
// extension kept (ToolCall.Params) and the principal that made it, for
// work that outlives the process that admitted it. The call is checked
// again as admission would (the tool must still exist, its arguments still
// be valid, the principal still allowed to use it).
func (rt *Runtime) ResumeToolCall(ctx context.Context, params json.RawMessage, principal any) (ToolRun, error) {
	var p callToolParams
	if err := decodeToolCallParams(params, nil, &p); err != nil {
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
	c := &Call{Params: append([]byte(nil), params...), dialect: dialect20260728{}}
	c.Info.Method, c.Info.ProtocolVersion, c.Info.Principal = "tools/call", mcp.Version20260728, principal
	if meta, ok := jsonwire.Member(params, "_meta"); ok {
		var wm wireRequestMeta
		if jsonwire.Unmarshal(meta, &wm) == nil && len(wm.ClientCapabilities) > 0 {
			if caps, jerr := parseClientCapabilities(wm.ClientCapabilities); jerr == nil {
				c.Info.ClientCapabilities = caps
			}
		}
	}
	if err := rt.authorizeUse(ctx, c, KindTool, *p.Name, "", func() *jsonrpc.Error { return unknownTool(*p.Name) }); err != nil {
		return nil, err
	}
	if bad, jerr := checkToolArguments(entry, args); jerr != nil {
		return nil, jerr
	} else if bad != nil {
		return nil, invalidParams("Invalid params: the arguments no longer fit the tool's input schema")
	}
	return rt.toolRun(c, entry, *p.Name, args), nil
}
