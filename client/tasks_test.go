package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/testkit"
)

// taskServer serves, over the native listener, a Runtime with the tasks
// extension: "render" (a task that completes), "confirm" (a task that
// asks for a confirmation, then finishes), "broken" (a task that fails),
// "hold" (a task that runs until cancelled) and "quick" (never a task).
func taskServer(t *testing.T) string {
	t.Helper()
	r, err := tasks.New(
		tasks.WithTools(
			tasks.Tool{Name: "render", Support: tasks.Optional},
			tasks.Tool{Name: "confirm", Support: tasks.Required},
			tasks.Tool{Name: "broken", Support: tasks.Optional},
			tasks.Tool{Name: "hold", Support: tasks.Optional},
		),
		tasks.WithLimits(tasks.Limits{PollInterval: 5 * time.Millisecond}),
	)
	if err != nil {
		t.Fatal(err)
	}
	noArgs := json.RawMessage(`{"type":"object"}`)
	text := func(s string) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(s), nil
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "tasks-client-test", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)), r.Option(),
		dispatch.WithTool(mcp.Tool{Name: "render", InputSchema: noArgs}, text("rendered")),
		dispatch.WithTool(mcp.Tool{Name: "quick", InputSchema: noArgs}, text("quick")),
		dispatch.WithTool(mcp.Tool{Name: "broken", InputSchema: noArgs}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the render farm is down"}
		}),
		dispatch.WithTool(mcp.Tool{Name: "hold", InputSchema: noArgs}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		dispatch.WithTool(mcp.Tool{Name: "confirm", InputSchema: noArgs}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if a, ok := req.Input.Elicitation("sure"); ok {
				return mcp.TextResult("confirmed: " + a.Action), nil
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"sure": mcp.ElicitForm("Sure?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)),
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
	srv := testfixture.StartHTTPWith(t, sup, rt)
	t.Cleanup(func() {
		if err := r.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if err := sup.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return srv.URL()
}

func TestClientRunsToolsAsTasks(t *testing.T) {
	url := taskServer(t)
	var asked atomic.Int32
	c := testkit.Connect(t, &client.HTTPTransport{URL: url}, client.WithElicitation(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()

	task, res, err := c.StartTool(ctx, "render", nil)
	if err != nil || res != nil || task == nil || task.Status != mcp.TaskWorking || task.TaskID == "" {
		t.Fatalf("StartTool(render): %+v %+v %v", task, res, err)
	}
	got, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil || mcp.TextOf(got.Content) != "rendered" {
		t.Fatalf("AwaitTask(render): %+v %v", got, err)
	}

	// A tool that never runs as a task answers StartTool at once, and
	// CallTool of a task tool answers synchronously: it does not declare
	// the extension.
	task, res, err = c.StartTool(ctx, "quick", nil)
	if err != nil || task != nil || res == nil || mcp.TextOf(res.Content) != "quick" {
		t.Fatalf("StartTool(quick): %+v %+v %v", task, res, err)
	}
	if res, err := c.CallTool(ctx, "render", nil); err != nil || mcp.TextOf(res.Content) != "rendered" {
		t.Fatalf("CallTool(render): %+v %v", res, err)
	}

	// Input mid-task goes through the same elicitation handler, once.
	task, _, err = c.StartTool(ctx, "confirm", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool(confirm): %+v %v", task, err)
	}
	got, err = c.AwaitTask(ctx, task.TaskID)
	if err != nil || mcp.TextOf(got.Content) != "confirmed: accept" || asked.Load() != 1 {
		t.Fatalf("AwaitTask(confirm): %+v %v, asked %d times", got, err, asked.Load())
	}

	// A failed task returns its JSON-RPC error.
	task, _, err = c.StartTool(ctx, "broken", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AwaitTask(ctx, task.TaskID)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "render farm is down") {
		t.Fatalf("AwaitTask(broken): %v", err)
	}

	// Cancelling: the task ends cancelled, and AwaitTask says so.
	task, _, err = c.StartTool(ctx, "hold", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetTask(ctx, task.TaskID); err != nil || got.Status != mcp.TaskWorking || got.ResultType != "complete" {
		t.Fatalf("GetTask(hold): %+v %v", got, err)
	}
	if err := c.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AwaitTask(ctx, task.TaskID); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("AwaitTask after CancelTask: %v", err)
	}

	// Errors the server specifies come back as *jsonrpc.Error.
	if _, err := c.GetTask(ctx, "not-a-task-id"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("GetTask of a malformed id: %v", err)
	}
	if err := c.UpdateTask(ctx, task.TaskID, map[string]any{"x": map[string]any{}}); !errors.As(err, &je) || !strings.Contains(je.Message, "not waiting for input") {
		t.Fatalf("UpdateTask of a cancelled task: %v", err)
	}
}

func TestClientUpdatesATaskItself(t *testing.T) {
	url := taskServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()

	// A client that cannot answer elicitations: the task fails with the
	// server's -32021, naming the capability.
	bare := testkit.Connect(t, &client.HTTPTransport{URL: url})
	task, _, err := bare.StartTool(ctx, "confirm", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool(confirm): %+v %v", task, err)
	}
	_, err = bare.AwaitTask(ctx, task.TaskID)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("AwaitTask without the elicitation capability: %v", err)
	}

	// The application answers the task's input itself with UpdateTask.
	var asked atomic.Int32
	c := testkit.Connect(t, &client.HTTPTransport{URL: url}, client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept"}, nil
	}))
	task, _, err = c.StartTool(ctx, "confirm", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool(confirm): %+v %v", task, err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var got *mcp.Task
	for {
		if got, err = c.GetTask(ctx, task.TaskID); err != nil {
			t.Fatal(err)
		}
		if got.Status != mcp.TaskWorking {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the task never asked for input")
		}
	}
	if got.Status != mcp.TaskInputRequired || len(got.InputRequests) != 1 {
		t.Fatalf("GetTask of a waiting task: %+v", got)
	}
	for key := range got.InputRequests {
		if err := c.UpdateTask(ctx, task.TaskID, map[string]any{key: mcp.ElicitResult{Action: "decline"}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil || mcp.TextOf(res.Content) != "confirmed: decline" || asked.Load() != 0 {
		t.Fatalf("AwaitTask after UpdateTask: %+v %v, handler asked %d times", res, err, asked.Load())
	}
}

func TestInitializeEraClientsGetNoTasks(t *testing.T) {
	url := taskServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	for _, version := range []string{mcp.Version20251125, mcp.Version20250618} {
		c := testkit.Connect(t, &client.HTTPTransport{URL: url}, client.WithProtocolVersions(version))
		if c.Server().ProtocolVersion != version {
			t.Fatalf("negotiated %s, want %s", c.Server().ProtocolVersion, version)
		}
		// An Optional tool answers at once.
		task, res, err := c.StartTool(ctx, "render", nil)
		if err != nil || task != nil || res == nil || mcp.TextOf(res.Content) != "rendered" {
			t.Fatalf("%s: StartTool(render): %+v %+v %v", version, task, res, err)
		}
		// A Required one is refused, naming the extension.
		_, _, err = c.StartTool(ctx, "confirm", nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(je.Message, mcp.ExtensionTasks) {
			t.Fatalf("%s: StartTool(confirm): %v", version, err)
		}
		// The tasks methods, and the 2025-11-25 experimental ones, do not exist.
		for _, method := range []string{mcp.MethodTasksGet, "tasks/list", "tasks/result"} {
			err := c.Call(ctx, method, map[string]any{"taskId": "x"}, nil)
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
				t.Fatalf("%s: %s: %v", version, method, err)
			}
		}
	}
}
