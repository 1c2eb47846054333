package dispatch_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// adminOnly hides admin_* tools from non-admins, conceals secret_* tools,
// refuses denied_* tools with an application code, and fails on broken_*.
var adminOnly = dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
	admin := a.Info.Principal == "admin"
	switch {
	case strings.HasPrefix(a.Name, "admin_") && !admin:
		if a.Phase == dispatch.PhaseDiscovery {
			return errors.New("hidden")
		}
		return &jsonrpc.Error{Code: -31001, Message: "Forbidden"}
	case strings.HasPrefix(a.Name, "secret_") && !admin:
		return dispatch.ErrConceal
	case strings.HasPrefix(a.Name, "broken_") && a.Phase == dispatch.PhaseInvocation:
		return errors.New("directory unreachable")
	case a.Kind == dispatch.KindResourceTemplate && a.URI == "docs://private" && !admin:
		return dispatch.ErrConceal
	}
	return nil
})

func TestAuthorizationDiscoveryFiltersBeforePaging(t *testing.T) {
	tools := []string{"a_tool", "admin_x", "admin_y", "b_tool", "secret_z", "c_tool"}
	opts := []dispatch.Option{dispatch.WithAuthorizer(adminOnly), dispatch.WithLimits(dispatch.Limits{PageSize: 2})}
	for _, name := range tools {
		opts = append(opts, dispatch.WithTool(mcp.Tool{Name: name}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}))
	}
	rt := mustNew(t, opts...)
	walk := func(principal any) []string {
		var got []string
		params := map[string]any{}
		for {
			r := resultOf(t, callWith(t, rt, "tools/list", params, func(r *dispatch.Request) { r.Principal = principal }))
			got = append(got, names(r["tools"].([]any), "name")...)
			c, ok := r["nextCursor"]
			if !ok {
				return got
			}
			params = map[string]any{"cursor": c}
		}
	}
	if got := walk("user"); !reflect.DeepEqual(got, []string{"a_tool", "b_tool", "c_tool"}) {
		t.Fatalf("user sees %v", got)
	}
	if got := walk("admin"); len(got) != 6 {
		t.Fatalf("admin sees %v", got)
	}
	// A user's cursor does not page an admin's list.
	r := resultOf(t, callWith(t, rt, "tools/list", nil, func(r *dispatch.Request) { r.Principal = "user" }))
	f := callWith(t, rt, "tools/list", map[string]any{"cursor": r["nextCursor"]}, func(r *dispatch.Request) { r.Principal = "admin" })
	rpcError(t, f, jsonrpc.CodeInvalidParams)
}

func TestAuthorizationInvocation(t *testing.T) {
	logger, logs := captureLogger()
	ran := map[string]bool{}
	h := func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		ran[r.Name] = true
		return mcp.TextResult("ok"), nil
	}
	rt := mustNew(t, dispatch.WithAuthorizer(adminOnly), dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "admin_x"}, h),
		dispatch.WithTool(mcp.Tool{Name: "secret_z"}, h),
		dispatch.WithTool(mcp.Tool{Name: "broken_b"}, h),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{name}", Name: "docs"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "", "doc")}}, nil
			}),
	)
	as := func(principal any, method string, p map[string]any) *jsonrpc.Error {
		f := callWith(t, rt, method, p, func(r *dispatch.Request) { r.Principal = principal })
		if f.Error == nil {
			return nil
		}
		return &jsonrpc.Error{Code: f.Error.Code, Message: f.Error.Message}
	}
	if e := as("user", "tools/call", map[string]any{"name": "admin_x"}); e == nil || e.Code != -31001 {
		t.Fatalf("refusal with the application's code: %v", e)
	}
	e := as("user", "tools/call", map[string]any{"name": "secret_z"})
	unknown := as("user", "tools/call", map[string]any{"name": "no_such_tool"})
	if e == nil || unknown == nil || e.Code != unknown.Code || !strings.HasPrefix(e.Message, "Unknown tool") {
		t.Fatalf("concealed %v, unknown %v", e, unknown)
	}
	if e := as("user", "tools/call", map[string]any{"name": "broken_b"}); e == nil || e.Code != jsonrpc.CodeInternalError || strings.Contains(e.Message, "unreachable") {
		t.Fatalf("authorizer failure: %v", e)
	}
	if !strings.Contains(logs.String(), "directory unreachable") {
		t.Fatalf("authorizer failure not logged: %s", logs)
	}
	if ran["admin_x"] || ran["secret_z"] || ran["broken_b"] {
		t.Fatalf("a refused tool ran: %v", ran)
	}
	if e := as("admin", "tools/call", map[string]any{"name": "admin_x"}); e != nil || !ran["admin_x"] {
		t.Fatalf("admin refused: %v", e)
	}
	if e := as("user", "resources/read", map[string]any{"uri": "docs://private"}); e == nil || e.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("concealed resource: %v", e)
	}
	if e := as("user", "resources/read", map[string]any{"uri": "docs://public"}); e != nil {
		t.Fatalf("public resource: %v", e)
	}
}
