package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/taskstore"
)

// startRunner starts r under a fresh supervisor, closing both when the
// test ends.
func startRunner(t *testing.T, r *Runner, resolve func(*taskstore.Record) (RunFunc, bool)) *supervisor.Supervisor {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "tasks-test", Version: "1"}, dispatch.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	if resolve == nil {
		resolve = func(*taskstore.Record) (RunFunc, bool) { return nil, false }
	}
	if err := r.start(context.Background(), sup, nil, resolve); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if err := sup.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if d := sup.UnexpectedDeadLetters(); d != 0 {
			t.Errorf("%d unexpected dead letters", d)
		}
	})
	return sup
}

func params(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func wantCode(t *testing.T, what string, jerr *jsonrpc.Error, code int64, msg string) {
	t.Helper()
	if jerr == nil || jerr.Code != code || !strings.Contains(jerr.Message, msg) {
		t.Fatalf("%s: got %v, want %d containing %q", what, jerr, code, msg)
	}
}

func TestBadInputGetsItsErrorAndChangesNothing(t *testing.T) {
	r, err := New(WithTools(Tool{Name: "ask", Support: Optional}))
	if err != nil {
		t.Fatal(err)
	}
	startRunner(t, r, nil)
	ask := func(context.Context, *Input) Outcome {
		return Outcome{InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list","params":{}}`)}}
	}
	created, jerr := r.begin(bg, call{principal: "alice", method: "tools/call", name: "ask", run: ask})
	if jerr != nil {
		t.Fatal(jerr)
	}
	if created.ResultType != mcp.ResultTypeTask || created.Status != mcp.TaskWorking || created.TTLMs == nil || *created.TTLMs != defaultTTL.Milliseconds() || created.PollIntervalMs != 500 {
		t.Fatalf("CreateTaskResult: %+v", created)
	}
	id := created.TaskID
	eng, _ := r.engine()
	waitFor(t, eng, id, taskstore.StatusInputRequired)
	before, _ := eng.get(bg, "alice", id)
	finished, jerr := r.begin(bg, call{principal: "alice", method: "tools/call", name: "ask", run: func(context.Context, *Input) Outcome { return result("x") }})
	if jerr != nil {
		t.Fatal(jerr)
	}
	waitFor(t, eng, finished.TaskID, taskstore.StatusCompleted)

	cases := []struct {
		what      string
		do        func() *jsonrpc.Error
		code      int64
		msg       string
		principal string
	}{
		{"get without params", func() *jsonrpc.Error { _, e := r.get(bg, "alice", nil); return e }, -32602, "taskId is required", ""},
		{"get without taskId", func() *jsonrpc.Error { _, e := r.get(bg, "alice", params(map[string]any{})); return e }, -32602, "taskId is required", ""},
		{"get with a number", func() *jsonrpc.Error { _, e := r.get(bg, "alice", params(map[string]any{"taskId": 7})); return e }, -32602, "must be a string", ""},
		{"get of a malformed id", func() *jsonrpc.Error {
			_, e := r.get(bg, "alice", params(map[string]any{"taskId": "tasks-conformance-nonexistent-12345"}))
			return e
		}, -32602, "not a task id this server issued", ""},
		{"get of an unknown id", func() *jsonrpc.Error {
			_, e := r.get(bg, "alice", params(map[string]any{"taskId": taskstore.NewID()}))
			return e
		}, -32602, "Task not found", ""},
		{"get of another principal's task", func() *jsonrpc.Error { _, e := r.get(bg, "mallory", params(map[string]any{"taskId": id})); return e }, -32602, "Task not found", ""},
		{"update of another principal's task", func() *jsonrpc.Error {
			_, e := r.update(bg, "mallory", params(map[string]any{"taskId": id, "inputResponses": map[string]any{"1.k": map[string]any{"roots": []any{}}}}))
			return e
		}, -32602, "Task not found", ""},
		{"cancel of another principal's task", func() *jsonrpc.Error { _, e := r.cancel(bg, "mallory", params(map[string]any{"taskId": id})); return e }, -32602, "Task not found", ""},
		{"update without inputResponses", func() *jsonrpc.Error { _, e := r.update(bg, "alice", params(map[string]any{"taskId": id})); return e }, -32602, "inputResponses must be an object", ""},
		{"update with null inputResponses", func() *jsonrpc.Error {
			_, e := r.update(bg, "alice", params(map[string]any{"taskId": id, "inputResponses": nil}))
			return e
		}, -32602, "inputResponses must be an object", ""},
		{"update with an array", func() *jsonrpc.Error {
			_, e := r.update(bg, "alice", params(map[string]any{"taskId": id, "inputResponses": []any{1}}))
			return e
		}, -32602, "inputResponses must be an object", ""},
		{"update of a task not waiting for input", func() *jsonrpc.Error {
			_, e := r.update(bg, "alice", params(map[string]any{"taskId": finished.TaskID, "inputResponses": map[string]any{}}))
			return e
		}, -32602, "not waiting for input (it is completed)", ""},
	}
	for _, c := range cases {
		wantCode(t, c.what, c.do(), c.code, c.msg)
	}
	after, _ := eng.get(bg, "alice", id)
	if after.Revision != before.Revision || after.Status != taskstore.StatusInputRequired {
		t.Fatalf("bad input changed the task: revision %d → %d, %s", before.Revision, after.Revision, after.Status)
	}
	done, _ := eng.get(bg, "alice", finished.TaskID)
	if done.Status != taskstore.StatusCompleted || done.Revision != 2 {
		t.Fatalf("bad input changed the finished task: %s at %d", done.Status, done.Revision)
	}

	// The good paths answer with the empty acknowledgement.
	res, jerr := r.cancel(bg, "alice", params(map[string]any{"taskId": finished.TaskID}))
	if jerr != nil || res != completeAck {
		t.Fatalf("cancel of a finished task: %v %v", res, jerr)
	}
	got, jerr := r.get(bg, "alice", params(map[string]any{"taskId": id}))
	if jerr != nil {
		t.Fatal(jerr)
	}
	task := got.(*mcp.Task)
	if task.ResultType != "complete" || task.Status != mcp.TaskInputRequired || task.InputRequests["1.k"] == nil || task.Result != nil || task.Error != nil {
		t.Fatalf("tasks/get of a waiting task: %+v", task)
	}
}

func TestFullRunnerRefusesWithAClearError(t *testing.T) {
	r, err := New(WithLimits(Limits{MaxTasks: 1}))
	if err != nil {
		t.Fatal(err)
	}
	startRunner(t, r, nil)
	block := func(ctx context.Context, _ *Input) Outcome { <-ctx.Done(); return result("x") }
	first, jerr := r.begin(bg, call{principal: "a", method: "tools/call", name: "t", run: block})
	if jerr != nil {
		t.Fatal(jerr)
	}
	_, jerr = r.begin(bg, call{principal: "a", method: "tools/call", name: "t", run: block})
	wantCode(t, "a task past the limit", jerr, -32603, "Task capacity exhausted: task capacity exhausted: 1 unfinished tasks")
	if _, jerr := r.cancel(bg, "a", params(map[string]any{"taskId": first.TaskID})); jerr != nil {
		t.Fatal(jerr)
	}
}

func TestTasksAreInTheTreeAndLeaveIt(t *testing.T) {
	r, err := New(WithLimits(Limits{Timeout: time.Hour, TTL: 2 * time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	sup := startRunner(t, r, nil)
	block := func(ctx context.Context, _ *Input) Outcome { <-ctx.Done(); return result("x") }
	created, jerr := r.begin(bg, call{principal: "a", method: "tools/call", name: "render", run: block})
	if jerr != nil {
		t.Fatal(jerr)
	}
	var task *supervisor.Node
	sup.Tree().Walk(func(n *supervisor.Node) {
		if n.Kind == "task" {
			task = n
		}
	})
	if task == nil || task.Attrs["tool"] != "render" || task.Attrs["status"] != "working" || task.Attrs["deadline"] == "" || task.Attrs["age"] == "" {
		t.Fatalf("task node: %+v", task)
	}
	if strings.Contains(task.ID, created.TaskID) || strings.Contains(task.Attrs["tool"]+task.Attrs["status"], created.TaskID) {
		t.Fatal("the tree shows the task id")
	}
	if _, jerr := r.cancel(bg, "a", params(map[string]any{"taskId": created.TaskID})); jerr != nil {
		t.Fatal(jerr)
	}
	if n := sup.Tree().Count("task"); n != 0 {
		t.Fatalf("%d task actors after the task ended", n)
	}
}

// waitFor waits for a task to reach a status, for at most 10 s, reading
// it again each time the engine reports a change of any task.
func waitFor(t *testing.T, eng *engine, id string, status taskstore.Status) {
	t.Helper()
	limit := time.Now().Add(10 * time.Second)
	for time.Now().Before(limit) {
		rec, err := eng.get(bg, "alice", id)
		if err == nil && rec.Status == status {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("task %s did not reach %s", id, status)
}
