package dispatch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// TestEveryCallbackIsIsolated makes each kind of application callback
// panic and checks the request gets -32603, the panic and its stack reach
// the logger only, and the Runtime serves the next request.
func TestEveryCallbackIsIsolated(t *testing.T) {
	const secret = "PANIC-DETAIL-4711"
	boom := func() { panic(secret) }
	logger, logs := captureLogger()
	authz := dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
		if a.Name == "authz_panics" || a.Phase == dispatch.PhaseDiscovery && a.Info.Principal == "list-panics" {
			boom()
		}
		return nil
	})
	rt := mustNew(t, dispatch.WithLogger(logger), dispatch.WithAuthorizer(authz),
		dispatch.WithTool(mcp.Tool{Name: "tool_panics"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			boom()
			return nil, nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "authz_panics"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("unreachable"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "fine"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("fine"), nil
		}),
		dispatch.WithTypedTool(mcp.Tool{Name: "typed_panics"}, func(context.Context, struct{}) (struct{}, error) {
			boom()
			return struct{}{}, nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "test://panics", Name: "p"}, func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			boom()
			return nil, nil
		}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "tmpl://{x}", Name: "t"}, func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			boom()
			return nil, nil
		}),
		dispatch.WithPrompt(mcp.Prompt{Name: "prompt_panics", Arguments: []mcp.PromptArgument{{Name: "a"}}}, func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			boom()
			return nil, nil
		}, dispatch.WithCompletion("a", func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) {
			boom()
			return nil, nil
		})),
		dispatch.WithExtension(dispatch.Extension{ID: "com.example/x", Versions: []string{mcp.Version20260728},
			Methods: map[string]dispatch.ExtensionHandler{"x/panics": func(context.Context, *dispatch.ExtensionRequest) (any, error) {
				boom()
				return nil, nil
			}},
			Negotiate: func(_ context.Context, s map[string]any) error {
				if s["negotiate"] == "panic" {
					boom()
				}
				return nil
			}}),
	)
	extCaps := func(s map[string]any) map[string]any {
		return map[string]any{"extensions": map[string]any{"com.example/x": s}}
	}
	cases := []struct {
		name, method string
		params       map[string]any
		principal    any
	}{
		{"tool", "tools/call", map[string]any{"name": "tool_panics"}, nil},
		{"typed tool", "tools/call", map[string]any{"name": "typed_panics"}, nil},
		{"authorizer at invocation", "tools/call", map[string]any{"name": "authz_panics"}, nil},
		{"authorizer at discovery", "tools/list", nil, "list-panics"},
		{"resource", "resources/read", map[string]any{"uri": "test://panics"}, nil},
		{"template", "resources/read", map[string]any{"uri": "tmpl://y"}, nil},
		{"prompt", "prompts/get", map[string]any{"name": "prompt_panics"}, nil},
		{"completion", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "prompt_panics"}, "argument": map[string]any{"name": "a", "value": ""}}, nil},
		{"extension", "x/panics", withCaps(map[string]any{}, extCaps(map[string]any{})), nil},
		{"negotiation", "x/panics", withCaps(map[string]any{}, extCaps(map[string]any{"negotiate": "panic"})), nil},
	}
	for _, c := range cases {
		before := strings.Count(logs.String(), secret)
		f := callWith(t, rt, c.method, c.params, func(r *dispatch.Request) { r.Principal = c.principal })
		if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || strings.Contains(string(f.Raw), secret) {
			t.Errorf("%s: response %s", c.name, f.Raw)
		}
		out := logs.String()
		if strings.Count(out, secret) <= before || !strings.Contains(out, "goroutine") {
			t.Errorf("%s: panic or stack not logged", c.name)
		}
		if text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "fine"})); isErr || text != "fine" {
			t.Fatalf("after %s the runtime no longer serves: %q", c.name, text)
		}
	}
}
