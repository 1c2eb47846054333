package tasks_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/testkit"
)

// server is a Runtime with the tasks extension and a few tools, its
// supervisor and its Runner, all closed when the test ends.
func server(t testing.TB, opts ...tasks.Option) (*dispatch.Runtime, *supervisor.Supervisor) {
	t.Helper()
	r, err := tasks.New(append([]tasks.Option{tasks.WithTools(
		tasks.Tool{Name: "render", Support: tasks.Optional},
		tasks.Tool{Name: "only_task", Support: tasks.Required},
		tasks.Tool{Name: "ask", Support: tasks.Optional},
	)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	noArgs := json.RawMessage(`{"type":"object"}`)
	rt, err := dispatch.New(mcp.Implementation{Name: "tasks-test", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)), r.Option(),
		dispatch.WithTool(mcp.Tool{Name: "render", Description: "renders", InputSchema: noArgs},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("rendered"), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "only_task", Description: "task only", InputSchema: noArgs},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("done"), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "ask", Description: "asks", InputSchema: noArgs},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if a, ok := req.Input.Elicitation("ok"); ok {
					return mcp.TextResult("answer " + a.Action), nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"ok": mcp.ElicitForm("OK?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)),
				}}
			}),
	)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), rt, sup); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.Close(context.Background())
		_ = sup.Close(context.Background())
	})
	return rt, sup
}

var declared = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
	"elicitation": map[string]any{}, "extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}},
}}

func call(t *testing.T, rt *dispatch.Runtime, method string, params map[string]any, header map[string][]string) *testkit.Frame {
	t.Helper()
	return testfixture.DispatchRequest(t, rt, testkit.Request(1, method, params), func(r *dispatch.Request) { r.Header = header })
}

func headers(method, name string) map[string][]string {
	h := map[string][]string{"Mcp-Method": {method}, "Mcp-Protocol-Version": {"2026-07-28"}}
	if name != "" {
		h["Mcp-Name"] = []string{name}
	}
	return h
}

func TestTaskLifecycleOverTheRuntime(t *testing.T) {
	rt, sup := server(t)
	f := call(t, rt, "tools/call", map[string]any{"name": "render", "_meta": declared}, nil)
	var created mcp.Task
	if f.Error != nil || json.Unmarshal(f.Result, &created) != nil || created.ResultType != "task" || created.TaskID == "" || created.TTLMs == nil {
		t.Fatalf("tools/call with the extension: %s %v", f.Raw, f.Error)
	}
	// An empty content array, and nothing else of a call result's.
	if !strings.Contains(string(f.Result), `"content":[]`) || strings.Contains(string(f.Result), "requestState") ||
		strings.Contains(string(f.Result), "isError") || strings.Contains(string(f.Result), "structuredContent") {
		t.Fatalf("CreateTaskResult: %s", f.Result)
	}
	if err := testkit.ValidateFrame(mcp.Version20260728, f.Raw, "tools/call"); err != nil {
		t.Fatalf("CreateTaskResult against the extension's schema: %v", err)
	}
	// Read as a core CallToolResult (as a validator that knows only the
	// core schema reads every tools/call result), it is valid too.
	asCore := strings.Replace(string(f.Raw), `"resultType":"task"`, `"resultType":"complete"`, 1)
	if err := testkit.ValidateFrame(mcp.Version20260728, []byte(asCore), "tools/call"); err != nil {
		t.Fatalf("CreateTaskResult against the core CallToolResult: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var got mcp.Task
	for time.Now().Before(deadline) {
		g := call(t, rt, "tasks/get", map[string]any{"taskId": created.TaskID, "_meta": declared}, nil)
		if g.Error != nil {
			t.Fatalf("tasks/get: %v", g.Error)
		}
		got = mcp.Task{}
		_ = json.Unmarshal(g.Result, &got)
		if got.Status.Terminal() {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got.Status != mcp.TaskCompleted || got.ResultType != "complete" || !strings.Contains(string(got.Result), "rendered") {
		t.Fatalf("tasks/get after completion: %+v", got)
	}
	if n := sup.Tree().Count("task"); n != 0 {
		t.Fatalf("%d task actors after the task completed", n)
	}

	// Without the extension the same tool answers at once.
	f = call(t, rt, "tools/call", map[string]any{"name": "render"}, nil)
	if f.Error != nil || !strings.Contains(string(f.Result), `"resultType":"complete"`) || strings.Contains(string(f.Result), "taskId") {
		t.Fatalf("tools/call without the extension: %s", f.Raw)
	}
}

func TestRequiredTaskToolWithoutTheExtension(t *testing.T) {
	rt, _ := server(t)
	f := call(t, rt, "tools/call", map[string]any{"name": "only_task"}, nil)
	if f.Error == nil || f.Error.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(string(f.Error.Data), mcp.ExtensionTasks) {
		t.Fatalf("required task tool without the extension: %s", f.Raw)
	}
	// The methods are gated the same way.
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		g := call(t, rt, m, map[string]any{"taskId": "gate-test", "inputResponses": map[string]any{}}, nil)
		if g.Error == nil || g.Error.Code != mcp.CodeMissingRequiredClientCapability {
			t.Fatalf("%s without the extension: %s", m, g.Raw)
		}
	}
	// tasks/list and tasks/result do not exist.
	for _, m := range []string{"tasks/list", "tasks/result"} {
		if g := call(t, rt, m, map[string]any{"taskId": "x", "_meta": declared}, nil); g.Error == nil || g.Error.Code != -32601 {
			t.Fatalf("%s: %s", m, g.Raw)
		}
	}
}

func TestMcpNameMirrorsTaskID(t *testing.T) {
	rt, _ := server(t)
	id := "AAAAAAAAAAAAAAAAAAAAAAAAAA"
	if g := call(t, rt, "tasks/get", map[string]any{"taskId": id, "_meta": declared}, headers("tasks/get", "other")); g.Error == nil || g.Error.Code != mcp.CodeHeaderMismatch {
		t.Fatalf("mismatched Mcp-Name: %s", g.Raw)
	}
	if g := call(t, rt, "tasks/get", map[string]any{"taskId": id, "_meta": declared}, headers("tasks/get", "")); g.Error == nil || g.Error.Code != mcp.CodeHeaderMismatch {
		t.Fatalf("missing Mcp-Name: %s", g.Raw)
	}
	if g := call(t, rt, "tasks/get", map[string]any{"taskId": id, "_meta": declared}, headers("tasks/get", id)); g.Error == nil || g.Error.Code != -32602 || !strings.Contains(g.Error.Message, "Task not found") {
		t.Fatalf("matching Mcp-Name, unknown task: %s", g.Raw)
	}
}

func TestInputInsideATask(t *testing.T) {
	rt, _ := server(t)
	f := call(t, rt, "tools/call", map[string]any{"name": "ask", "_meta": declared}, nil)
	var created mcp.Task
	_ = json.Unmarshal(f.Result, &created)
	var got mcp.Task
	for limit := time.Now().Add(10 * time.Second); time.Now().Before(limit); time.Sleep(5 * time.Millisecond) {
		g := call(t, rt, "tasks/get", map[string]any{"taskId": created.TaskID, "_meta": declared}, nil)
		got = mcp.Task{}
		_ = json.Unmarshal(g.Result, &got)
		if got.Status == mcp.TaskInputRequired {
			break
		}
	}
	if got.Status != mcp.TaskInputRequired || got.InputRequests["1.ok"] == nil || !strings.Contains(string(got.InputRequests["1.ok"]), "elicitation/create") {
		t.Fatalf("waiting task: %+v", got)
	}
	u := call(t, rt, "tasks/update", map[string]any{"taskId": created.TaskID, "inputResponses": map[string]any{"1.ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}, "_meta": declared}, nil)
	if u.Error != nil || string(u.Result) == "" || !strings.Contains(string(u.Result), `"resultType":"complete"`) || strings.Contains(string(u.Result), "taskId") {
		t.Fatalf("tasks/update: %s", u.Raw)
	}
	for limit := time.Now().Add(10 * time.Second); time.Now().Before(limit); time.Sleep(5 * time.Millisecond) {
		g := call(t, rt, "tasks/get", map[string]any{"taskId": created.TaskID, "_meta": declared}, nil)
		got = mcp.Task{}
		_ = json.Unmarshal(g.Result, &got)
		if got.Status.Terminal() {
			break
		}
	}
	if got.Status != mcp.TaskCompleted || !strings.Contains(string(got.Result), "answer accept") {
		t.Fatalf("after the answer: %+v", got)
	}
}
