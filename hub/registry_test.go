package hub_test

import (
	"context"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func toolNames(t *testing.T, rt *dispatch.Runtime) string {
	t.Helper()
	res := resultOf(t, call(t, rt, "tools/list", nil))
	var names []string
	for _, tl := range res["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

func TestRegistryChangesToolsAndPublishesListChanged(t *testing.T) {
	h := hub.New(hub.Options{})
	reg := hub.NewRegistry(h)
	rt := mustNew(t, dispatch.WithSubscriptions(h), dispatch.WithCatalog(reg),
		dispatch.WithTool(mcp.Tool{Name: "static"}, okTool))
	if c := rt.Capabilities(); c.Tools == nil || !c.Tools.ListChanged || c.Prompts == nil || !c.Prompts.ListChanged {
		t.Fatalf("capabilities: %+v", c)
	}
	w := newWaker()
	s := openStream(t, rt, "watch", map[string]any{"toolsListChanged": true, "promptsListChanged": true}, w)
	next(t, s) // acknowledgement
	next(t, s) // idle now

	if err := reg.AddTool(mcp.Tool{Name: "added"}, okTool); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	f, _ := next(t, s)
	if ev := decodeFrame(t, f); ev.Method != "notifications/tools/list_changed" {
		t.Fatalf("after AddTool: %s", f)
	}
	if got := toolNames(t, rt); got != "added,static" {
		t.Fatalf("tools after AddTool: %s", got)
	}
	if r := resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "added"})); r["isError"] != nil {
		t.Fatalf("calling the added tool: %v", r)
	}
	if err := reg.AddTool(mcp.Tool{Name: "static"}, okTool); err == nil {
		t.Fatal("a tool registered twice was accepted")
	}
	if err := reg.AddTool(mcp.Tool{Name: "bad name!"}, okTool); err == nil {
		t.Fatal("an invalid tool name was accepted")
	}
	if !reg.RemoveTool("static") || reg.RemoveTool("static") {
		t.Fatal("RemoveTool")
	}
	if got := toolNames(t, rt); got != "added" {
		t.Fatalf("tools after RemoveTool: %s", got)
	}
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "static"}), jsonrpc.CodeInvalidParams)

	type in struct {
		N int `json:"n"`
	}
	type out struct {
		Double int `json:"double"`
	}
	if err := hub.AddTypedTool(reg, mcp.Tool{Name: "double"}, func(_ context.Context, a in) (out, error) {
		return out{a.N * 2}, nil
	}); err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "double", "arguments": map[string]any{"n": 21}}))
	if sc := r["structuredContent"].(map[string]any); sc["double"] != float64(42) {
		t.Fatalf("typed tool: %v", r)
	}

	if err := reg.AddPrompt(mcp.Prompt{Name: "greet"}, okPrompt); err != nil {
		t.Fatal(err)
	}
	if p := resultOf(t, call(t, rt, "prompts/list", nil))["prompts"].([]any); len(p) != 1 {
		t.Fatalf("prompts: %v", p)
	}
	if !reg.RemovePrompt("greet") {
		t.Fatal("RemovePrompt")
	}
	// Every change reached the stream: 3 more tool changes (remove,
	// typed add) and 2 prompt changes, each pulled after the previous.
	var methods []string
	for {
		f, last := next(t, s)
		if f == nil || last {
			break
		}
		methods = append(methods, decodeFrame(t, f).Method)
	}
	want := "notifications/tools/list_changed notifications/tools/list_changed notifications/prompts/list_changed notifications/prompts/list_changed"
	if strings.Join(methods, " ") != want {
		t.Fatalf("events: %v", methods)
	}
}

func TestRegistryBindRefusesACollision(t *testing.T) {
	reg := hub.NewRegistry(nil)
	if err := reg.AddTool(mcp.Tool{Name: "x"}, okTool); err != nil {
		t.Fatal(err)
	}
	_, err := dispatch.New(testInfo, dispatch.WithCatalog(reg), dispatch.WithTool(mcp.Tool{Name: "x"}, okTool))
	if err == nil {
		t.Fatal("New accepted a tool the registry already holds")
	}
	// A registry without a hub changes lists silently, and an empty one
	// still offers both kinds.
	rt := mustNew(t, dispatch.WithCatalog(hub.NewRegistry(nil)))
	if c := rt.Capabilities(); c.Tools == nil || c.Tools.ListChanged || c.Prompts == nil {
		t.Fatalf("capabilities: %+v", c)
	}
	if got := testfixture.Dispatch(t, rt, testkit.Request(1, "tools/list", nil)); got.Error != nil {
		t.Fatalf("empty tools/list: %s", got.Raw)
	}
	if _, err := dispatch.New(testInfo, dispatch.WithCatalog(nil)); err == nil {
		t.Fatal("nil registry accepted")
	}
	if _, err := dispatch.New(testInfo, dispatch.WithSubscriptions(nil)); err == nil {
		t.Fatal("nil source accepted")
	}
}

func TestRegistryChangeDuringAPagedList(t *testing.T) {
	reg := hub.NewRegistry(nil)
	rt := mustNew(t, dispatch.WithCatalog(reg), dispatch.WithLimits(dispatch.Limits{PageSize: 1}),
		dispatch.WithTool(mcp.Tool{Name: "a"}, okTool), dispatch.WithTool(mcp.Tool{Name: "b"}, okTool))
	first := resultOf(t, call(t, rt, "tools/list", nil))
	cursor, _ := first["nextCursor"].(string)
	if cursor == "" {
		t.Fatalf("no cursor: %v", first)
	}
	if err := reg.AddTool(mcp.Tool{Name: "c"}, okTool); err != nil {
		t.Fatal(err)
	}
	// The cursor was bound to the old list: the client is told to start
	// over rather than shown a page of a list that no longer exists.
	rpcError(t, call(t, rt, "tools/list", map[string]any{"cursor": cursor}), jsonrpc.CodeInvalidParams)
}

func TestRegistryChangesResourcesAndTemplates(t *testing.T) {
	h := hub.New(hub.Options{})
	reg := hub.NewRegistry(h)
	rt := mustNew(t, dispatch.WithSubscriptions(h), dispatch.WithCatalog(reg),
		dispatch.WithResource(mcp.Resource{URI: "docs://static", Name: "static"}, okResource))
	// An empty list may fill up: resources (with listChanged and
	// subscribe) and completions are offered from the start.
	if c := rt.Capabilities(); c.Resources == nil || !c.Resources.ListChanged || c.Completions == nil {
		t.Fatalf("capabilities: %+v", c)
	}
	w := newWaker()
	s := openStream(t, rt, "watch", map[string]any{"resourcesListChanged": true}, w)
	next(t, s) // acknowledgement
	next(t, s) // idle now

	if err := reg.AddResource(mcp.Resource{URI: "docs://added", Name: "added"}, okResource); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	f, _ := next(t, s)
	if ev := decodeFrame(t, f); ev.Method != "notifications/resources/list_changed" {
		t.Fatalf("after AddResource: %s", f)
	}
	list := resultOf(t, call(t, rt, "resources/list", nil))["resources"].([]any)
	if got := strings.Join(names(list, "uri"), ","); got != "docs://added,docs://static" {
		t.Fatalf("resources after AddResource: %s", got)
	}
	resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "docs://added"}))
	if f, _ := next(t, s); f != nil { // idle again
		t.Fatalf("an event nothing published: %s", f)
	}

	// The checks of New: duplicates, bad URIs, missing names and handlers.
	for name, err := range map[string]error{
		"duplicate":  reg.AddResource(mcp.Resource{URI: "docs://static", Name: "x"}, okResource),
		"relative":   reg.AddResource(mcp.Resource{URI: "static", Name: "x"}, okResource),
		"no name":    reg.AddResource(mcp.Resource{URI: "docs://local/x"}, okResource),
		"no handler": reg.AddResource(mcp.Resource{URI: "docs://local/x", Name: "x"}, nil),
		"bad template": reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{", Name: "t"},
			okResource),
		"unknown completion variable": reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://local/{path}", Name: "t"},
			okResource, dispatch.WithCompletion("nope", completeColors)),
		// A template matching a registered resource, either way round.
		"template over a resource": reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{name}", Name: "t"}, okResource),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://local/{path}", Name: "files"}, okResource,
		dispatch.WithCompletion("path", completeColors)); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	f, _ = next(t, s)
	if ev := decodeFrame(t, f); ev.Method != "notifications/resources/list_changed" {
		t.Fatalf("after AddResourceTemplate: %s", f)
	}
	if err := reg.AddResource(mcp.Resource{URI: "files://local/a", Name: "a"}, okResource); err == nil {
		t.Error("a resource a template matches was accepted")
	}
	if err := reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://local/{path}", Name: "again"}, okResource); err == nil {
		t.Error("a template registered twice was accepted")
	}
	tl := resultOf(t, call(t, rt, "resources/templates/list", nil))["resourceTemplates"].([]any)
	if got := strings.Join(names(tl, "uriTemplate"), ","); got != "files://local/{path}" {
		t.Fatalf("templates: %s", got)
	}
	resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "files://local/readme"}))

	// Completions follow the registry: the added template completes, and
	// once removed it is unknown.
	complete := map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "files://local/{path}"},
		"argument": map[string]any{"name": "path", "value": "r"}}
	values := resultOf(t, call(t, rt, "completion/complete", complete))["completion"].(map[string]any)["values"].([]any)
	if len(values) != 1 || values[0] != "red" {
		t.Fatalf("completion: %v", values)
	}
	if !reg.RemoveResourceTemplate("files://local/{path}") || reg.RemoveResourceTemplate("files://local/{path}") {
		t.Fatal("RemoveResourceTemplate")
	}
	rpcError(t, call(t, rt, "completion/complete", complete), jsonrpc.CodeInvalidParams)
	rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "files://local/readme"}), jsonrpc.CodeInvalidParams)
	// With the template gone, its URIs may be fixed resources.
	if err := reg.AddResource(mcp.Resource{URI: "files://local/a", Name: "a"}, okResource); err != nil {
		t.Fatal(err)
	}
	if !reg.RemoveResource("docs://static") || reg.RemoveResource("docs://static") {
		t.Fatal("RemoveResource")
	}
	e := rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "docs://static"}), jsonrpc.CodeInvalidParams)
	if errorData(t, e)["uri"] != "docs://static" {
		t.Fatalf("not found data: %s", e.Data)
	}
	// Each change reached the stream: the template's removal, the
	// resource's addition and removal (one event already pulled each
	// time above).
	var methods []string
	for {
		f, last := next(t, s)
		if f == nil || last {
			break
		}
		methods = append(methods, decodeFrame(t, f).Method)
	}
	if len(methods) != 3 || methods[0] != "notifications/resources/list_changed" || methods[2] != methods[0] {
		t.Fatalf("events: %v", methods)
	}
}

func TestRegistryBindChecksResources(t *testing.T) {
	reg := hub.NewRegistry(nil)
	if err := reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://local/{name}", Name: "docs"}, okResource); err != nil {
		t.Fatal(err)
	}
	if _, err := dispatch.New(testInfo, dispatch.WithCatalog(reg),
		dispatch.WithResource(mcp.Resource{URI: "docs://local/x", Name: "x"}, okResource)); err == nil {
		t.Fatal("New accepted a resource a registry template matches")
	}
	if _, err := dispatch.New(testInfo, dispatch.WithCatalog(reg),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://local/{name}", Name: "again"}, okResource)); err == nil {
		t.Fatal("New accepted a template the registry already holds")
	}
	rt := mustNew(t, dispatch.WithCatalog(reg),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://local/{path}", Name: "files"}, okResource))
	// Registration order is match precedence: the registry's template,
	// then the Runtime's.
	tl := resultOf(t, call(t, rt, "resources/templates/list", nil))["resourceTemplates"].([]any)
	if got := strings.Join(names(tl, "uriTemplate"), ","); got != "docs://local/{name},files://local/{path}" {
		t.Fatalf("templates: %s", got)
	}
	// The Runtime's template is in the registry now, so removing it there
	// removes it from the Runtime.
	if !reg.RemoveResourceTemplate("files://local/{path}") {
		t.Fatal("the Runtime's template did not move into the registry")
	}
	rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "files://local/a"}), jsonrpc.CodeInvalidParams)
}

// completeColors suggests the colours that start with what was typed.
func completeColors(_ context.Context, r *dispatch.CompleteRequest) (*mcp.Completion, error) {
	var out []string
	for _, c := range []string{"red", "green", "blue"} {
		if strings.HasPrefix(c, r.Value) {
			out = append(out, c)
		}
	}
	return &mcp.Completion{Values: out}, nil
}
