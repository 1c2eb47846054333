package dispatch

// Registering a tool and its handler, with its schemas checked.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// ToolHandler runs a tool call. ctx is cancelled when the client cancels the
// request, disconnects, or the request deadline passes.
//
// A returned *jsonrpc.Error (found with errors.As) becomes that JSON-RPC
// error; an *[InputRequired] asks the client for input (multi round-trip
// requests); any other error becomes a result with isError set and the
// error's text as content, so the model can see it and correct itself. A
// panic becomes -32603 for this request only and is logged with its stack.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*mcp.CallToolResult, error)

// CallToolRequest is what a ToolHandler receives.
type CallToolRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the raw arguments object ({} when the client sent none).
	Arguments json.RawMessage
	// Info describes the request: protocol version, client capabilities,
	// principal.
	Info *RequestInfo
	// Input carries the client's answers on a retry after input_required;
	// nil otherwise.
	Input *Input
}

// toolEntry is a registered tool with its compiled schemas.
type toolEntry struct {
	tool    mcp.Tool
	handler ToolHandler
	input   *jsonschema.Resolved
	output  *jsonschema.Resolved // nil without an output schema
	// inputWhy and outputWhy name the place a value fails the schemas.
	inputWhy, outputWhy *explainer
	// anyObject is set when the input schema is exactly {"type":"object"}:
	// any arguments object passes, so validation is skipped.
	anyObject bool
	// flat, when the input schema is a flat object of scalar properties,
	// accepts most valid arguments without the general validator.
	flat    *flatSchema
	headers []headerParam // x-mcp-header annotations
	policy  *componentPolicy
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}$`)

// WithTool registers a tool with a raw-schema handler. The name must be 1
// to 64 characters of [A-Za-z0-9_./-] and unique. The schemas are JSON
// Schema 2020-12 objects (draft-07 when $schema says so) sent to tools/list
// byte for byte; the input schema needs "type":"object" at its root (nil
// means {"type":"object"}). Arguments are validated against the input
// schema before the handler runs, and structuredContent against the output
// schema after it. x-mcp-header annotations are checked here. opts are
// the tool's policies and middleware ([PolicyOption]). Any problem fails
// New.
func WithTool(t mcp.Tool, h ToolHandler, opts ...ComponentOption) Option {
	return componentOption(func(b *builder) error { return b.addTool(t, h, opts) })
}

func (b *builder) addTool(t mcp.Tool, h ToolHandler, opts []ComponentOption) error {
	if !toolNameRE.MatchString(t.Name) {
		return fmt.Errorf("dispatch: tool name %q must be 1 to 64 characters of [A-Za-z0-9_./-]", t.Name)
	}
	if h == nil {
		return fmt.Errorf("dispatch: tool %q has no handler", t.Name)
	}
	if _, dup := b.tools[t.Name]; dup {
		return fmt.Errorf("dispatch: tool %q registered twice", t.Name)
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = []byte(`{"type":"object"}`)
	}
	cfg, err := componentOptions("tool", t.Name, opts)
	if err != nil {
		return err
	}
	if cfg.complete != nil {
		return fmt.Errorf("dispatch: tool %q: WithCompletion applies to prompts and resource templates only", t.Name)
	}
	e := &toolEntry{tool: t, handler: h, policy: &componentPolicy{own: cfg.policy}}
	if err = checkSchema(t.InputSchema); err != nil {
		return fmt.Errorf("dispatch: tool %q input schema: %w", t.Name, err)
	}
	if typ, _ := jsonwire.Member(t.InputSchema, "type"); string(typ) != `"object"` {
		return fmt.Errorf("dispatch: tool %q input schema must have \"type\":\"object\" at its root", t.Name)
	}
	e.anyObject = string(t.InputSchema) == `{"type":"object"}`
	e.inputWhy = newExplainer(t.InputSchema)
	if e.input, err = compileSchema(t.InputSchema); err != nil {
		return fmt.Errorf("dispatch: tool %q input schema: %w", t.Name, err)
	}
	if !e.anyObject {
		e.flat = compileFlat(t.InputSchema, e.input)
	}
	if e.headers, err = headerParams(t.InputSchema); err != nil {
		return fmt.Errorf("dispatch: tool %q: %w", t.Name, err)
	}
	if len(t.OutputSchema) > 0 {
		if err = checkSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("dispatch: tool %q output schema: %w", t.Name, err)
		}
		if e.output, err = compileSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("dispatch: tool %q output schema: %w", t.Name, err)
		}
		e.outputWhy = newExplainer(t.OutputSchema)
	}
	b.tools[t.Name] = e
	return nil
}

func checkSchema(s []byte) error {
	if !jsonwire.Valid(s) {
		return errors.New("not valid JSON")
	}
	if t := strings.TrimLeft(string(s), " \t\r\n"); !strings.HasPrefix(t, "{") {
		return errors.New("must be a JSON object")
	}
	return nil
}
