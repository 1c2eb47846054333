// Typed tools: WithTypedTool and AddTypedTool over Go types, with inferred
// schemas.

package dispatch

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// TypedToolHandler is a tool handler over Go types: In is decoded from the
// call's arguments after they have passed the input schema, and Out
// becomes the result's structuredContent plus a text block holding the
// same JSON. When Out is *[mcp.CallToolResult], the handler builds the
// result itself (text, images, any structuredContent) and it is sent as
// returned; nil is an empty result. Errors behave as in a [ToolHandler];
// return an *[InputRequired] to ask the client for input first.
type TypedToolHandler[In, Out any] func(ctx context.Context, in In) (Out, error)

// WithTypedTool registers a tool whose schemas come from Go types.
//
// When t.InputSchema is nil it is inferred from In (JSON Schema 2020-12,
// by github.com/google/jsonschema-go): struct fields become properties
// named by their json tags, fields without omitempty or omitzero are
// required, other properties are refused, and a jsonschema tag is the
// property's description. In must therefore be a struct (or a map with
// string keys). When t.OutputSchema is nil it is inferred from Out, unless
// Out is an interface type or *mcp.CallToolResult. Explicit schemas are
// used as given, which is how to add keywords inference cannot express,
// such as x-mcp-header; a result a handler builds itself must then carry
// structuredContent that passes the output schema.
//
// Arguments failing the input schema give an isError result naming the
// failing path and keyword, never the value, and the handler does not
// run. Output failing the output schema is -32603.
//
// opts are the tool's policies and middleware ([PolicyOption]).
func WithTypedTool[In, Out any](t mcp.Tool, h TypedToolHandler[In, Out], opts ...ComponentOption) Option {
	return componentOption(func(b *builder) error {
		if h == nil {
			return fmt.Errorf("dispatch: tool %q has no handler", t.Name)
		}
		if len(t.InputSchema) == 0 {
			s, err := inferSchema[In]()
			if err != nil {
				return fmt.Errorf("dispatch: tool %q input type: %w", t.Name, err)
			}
			if s.Type != "object" {
				return fmt.Errorf("dispatch: tool %q input type %s must be a struct or a map with string keys", t.Name, reflect.TypeFor[In]())
			}
			if t.InputSchema, err = s.MarshalJSON(); err != nil {
				return fmt.Errorf("dispatch: tool %q input schema: %w", t.Name, err)
			}
		}
		if len(t.OutputSchema) == 0 && !returnsResult[Out]() && reflect.TypeFor[Out]().Kind() != reflect.Interface {
			s, err := inferSchema[Out]()
			if err != nil {
				return fmt.Errorf("dispatch: tool %q output type: %w", t.Name, err)
			}
			if t.OutputSchema, err = s.MarshalJSON(); err != nil {
				return fmt.Errorf("dispatch: tool %q output schema: %w", t.Name, err)
			}
		}
		return b.addTool(t, typedHandler(h), opts)
	})
}

func inferSchema[T any]() (*jsonschema.Schema, error) {
	return jsonschema.For[T](nil)
}

// returnsResult reports whether a typed handler returning Out builds the
// tool's result itself.
func returnsResult[Out any]() bool {
	return reflect.TypeFor[Out]() == reflect.TypeFor[*mcp.CallToolResult]()
}

func typedHandler[In, Out any](h TypedToolHandler[In, Out]) ToolHandler {
	asIs := returnsResult[Out]()
	return func(ctx context.Context, req *CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := jsonwire.Unmarshal(req.Arguments, &in); err != nil {
			// The schema admitted the arguments but they do not fit In:
			// the schema given was looser than the type.
			return mcp.ErrorResult(decodeFailure(req.Arguments, new(In))), nil
		}
		out, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		if asIs { // mutation: typed-tool-sends-its-own-result-as-is
			res, _ := any(out).(*mcp.CallToolResult)
			return res, nil
		}
		body, err := jsonwire.API.Marshal(out)
		if err != nil {
			return nil, &serverError{what: "encoding the tool's output", err: err}
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.Text(string(body))},
			StructuredContent: rawJSON(body),
		}, nil
	}
}

// rawJSON is already-encoded JSON placed in a result as is.
type rawJSON []byte

// MarshalJSON implements json.Marshaler.
func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// serverError is a failure of the server's own making inside a callback
// wrapper: it is logged and answered with -32603, never shown as an
// isError result.
type serverError struct {
	what string
	err  error
}

func (e *serverError) Error() string { return e.what + ": " + e.err.Error() }
func (e *serverError) Unwrap() error { return e.err }
