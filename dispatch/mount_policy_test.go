package dispatch_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// A mounted component runs through its part's own policies (shared with
// the part's direct callers) and, outside them, the mounting Runtime's
// server-wide ones; each resource and prompt kind goes the same way.
func TestMountedComponentsRunThroughBothRuntimesPolicies(t *testing.T) {
	var mu sync.Mutex
	var trail []string
	mw := func(name string) dispatch.Middleware {
		return func(next dispatch.InvocationHandler) dispatch.InvocationHandler {
			return func(ctx context.Context, inv *dispatch.Invocation) (any, error) {
				mu.Lock()
				trail = append(trail, name+">"+inv.Name)
				mu.Unlock()
				return next(ctx, inv)
			}
		}
	}
	prompt := func(_ context.Context, r *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}}, nil
	}
	part := mustNew(t,
		dispatch.WithTool(mcp.Tool{Name: "search"}, okTool, dispatch.WithMiddleware(mw("part"))),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet"}, prompt, dispatch.WithMiddleware(mw("part"))),
		dispatch.WithResource(mcp.Resource{URI: "docs://guide", Name: "guide"}, okResource, dispatch.WithMiddleware(mw("part"))),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://local/{path}", Name: "files"}, okResource, dispatch.WithMiddleware(mw("part"))),
	)
	outer := mustNew(t,
		dispatch.WithComponentPolicies(dispatch.WithMiddleware(mw("outer"))),
		dispatch.WithMount("gh", part),
	)
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"tools/call", map[string]any{"name": "gh_search"}},
		{"prompts/get", map[string]any{"name": "gh_greet"}},
		{"resources/read", map[string]any{"uri": "gh+docs://guide"}},
		{"resources/read", map[string]any{"uri": "gh+docs://local/a"}},
	} {
		resultOf(t, call(t, outer, c.method, c.params))
	}
	// The part's own callers go through the part's policies alone.
	resultOf(t, call(t, part, "tools/call", map[string]any{"name": "search"}))
	want := []string{
		"outer>gh_search", "part>search",
		"outer>gh_greet", "part>greet",
		"outer>gh+docs://guide", "part>docs://guide",
		"outer>gh+docs://local/{path}", "part>docs://local/{path}",
		"part>search",
	}
	if fmt.Sprint(trail) != fmt.Sprint(want) {
		t.Fatalf("trail\n got %v\nwant %v", trail, want)
	}
}
