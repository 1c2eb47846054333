package dispatch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
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
	hub := dispatch.NewHub(dispatch.HubOptions{})
	reg := dispatch.NewRegistry(hub)
	rt := mustNew(t, dispatch.WithSubscriptions(hub), dispatch.WithRegistry(reg),
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
	if err := dispatch.AddTypedTool(reg, mcp.Tool{Name: "double"}, func(_ context.Context, a in) (out, error) {
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
	reg := dispatch.NewRegistry(nil)
	if err := reg.AddTool(mcp.Tool{Name: "x"}, okTool); err != nil {
		t.Fatal(err)
	}
	_, err := dispatch.New(testInfo, dispatch.WithRegistry(reg), dispatch.WithTool(mcp.Tool{Name: "x"}, okTool))
	if err == nil {
		t.Fatal("New accepted a tool the registry already holds")
	}
	// A registry without a hub changes lists silently, and an empty one
	// still offers both kinds.
	rt := mustNew(t, dispatch.WithRegistry(dispatch.NewRegistry(nil)))
	if c := rt.Capabilities(); c.Tools == nil || c.Tools.ListChanged || c.Prompts == nil {
		t.Fatalf("capabilities: %+v", c)
	}
	if got := testkit.Dispatch(t, rt, testkit.Request(1, "tools/list", nil)); got.Error != nil {
		t.Fatalf("empty tools/list: %s", got.Raw)
	}
	if _, err := dispatch.New(testInfo, dispatch.WithRegistry(nil)); err == nil {
		t.Fatal("nil registry accepted")
	}
	if _, err := dispatch.New(testInfo, dispatch.WithSubscriptions(nil)); err == nil {
		t.Fatal("nil source accepted")
	}
}

func TestRegistryChangeDuringAPagedList(t *testing.T) {
	reg := dispatch.NewRegistry(nil)
	rt := mustNew(t, dispatch.WithRegistry(reg), dispatch.WithLimits(dispatch.Limits{PageSize: 1}),
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
