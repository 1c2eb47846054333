package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// getCounter signals each tasks/get the server finished.
type getCounter struct {
	instrumentation.Nop
	gets chan struct{}
}

func (g *getCounter) DispatchStop(_ context.Context, e instrumentation.DispatchStop) {
	if e.Method == mcp.MethodTasksGet {
		g.gets <- struct{}{}
	}
}

// gateTaskServer serves over the native listener a Runtime with the tasks
// extension and two tools: "gate", whose task completes when the test
// closes the returned channel, and "ask", whose task asks for a
// confirmation first. With a hub, tasks' status changes go to
// listen streams; poll is the interval the tasks suggest. Each tasks/get
// the server finishes is signalled on gets.
func gateTaskServer(t *testing.T, hub bool, poll time.Duration) (url string, gate chan struct{}, gets chan struct{}) {
	t.Helper()
	rt, sup, gate, gets := gateRuntime(t, hub, poll)
	return testfixture.StartHTTPWith(t, sup, rt).URL(), gate, gets
}

// gateRuntime is gateTaskServer's Runtime and supervisor, the task runner
// started, served by no transport yet.
func gateRuntime(t *testing.T, withHub bool, poll time.Duration) (rt *dispatch.Runtime, sup *supervisor.Supervisor, gate chan struct{}, gets chan struct{}) {
	t.Helper()
	gate, gets = make(chan struct{}), make(chan struct{}, 100)
	r, err := tasks.New(tasks.WithTools(tasks.Tool{Name: "gate", Support: tasks.Optional}, tasks.Tool{Name: "ask", Support: tasks.Optional}),
		tasks.WithLimits(tasks.Limits{PollInterval: poll}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []dispatch.Option{dispatch.WithLogger(slog.New(slog.DiscardHandler)), r.Option(),
		dispatch.WithInstrumentation(&getCounter{gets: gets}),
		dispatch.WithTool(mcp.Tool{Name: "gate", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-gate:
					return mcp.TextResult("opened"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
		dispatch.WithTool(mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if a, ok := req.Input.Elicitation("sure"); ok {
					return mcp.TextResult("answered " + a.Action), nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"sure": mcp.ElicitForm("Sure?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)),
				}}
			})}
	if withHub {
		opts = append(opts, dispatch.WithSubscriptions(hub.New(hub.Options{})))
	}
	rt, err = dispatch.New(mcp.Implementation{Name: "tasks-listen-client-test", Version: "1"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sup, err = supervisor.New(rt)
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
	return rt, sup, gate, gets
}

// startGate starts a "gate" task and returns its id.
func startGate(ctx context.Context, t *testing.T, c *client.Client) string {
	t.Helper()
	task, res, err := c.StartTool(ctx, "gate", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool(gate): %+v %+v %v", task, res, err)
	}
	return task.TaskID
}

// waitGet waits for the server to finish a tasks/get.
func waitGet(t *testing.T, gets chan struct{}) {
	t.Helper()
	select {
	case <-gets:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("no tasks/get reached the server")
	}
}

func TestClientListensForTaskStatus(t *testing.T) {
	url, gate, _ := gateTaskServer(t, true, time.Hour)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	id := startGate(ctx, t, c)

	sub, err := c.ListenTasks(ctx, id, "AAAAAAAAAAAAAAAAAAAAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := sub.Acknowledged().Keys[mcp.FilterTaskIDs]; !slices.Equal(got, []string{id}) {
		t.Fatalf("acknowledged %v, want only %s", got, id)
	}
	close(gate)
	ev, err := sub.Next(ctx)
	if err != nil || ev.Method != mcp.NotificationTasks || ev.Task == nil || ev.Task.TaskID != id ||
		ev.Task.Status != mcp.TaskCompleted || !json.Valid(ev.Task.Result) {
		t.Fatalf("status event: %+v %v", ev, err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(ev.Task.Result, &res); err != nil || mcp.TextOf(res.Content) != "opened" {
		t.Fatalf("result in the notification: %s", ev.Task.Result)
	}
}

func TestWaitTaskFollowsTheListenStream(t *testing.T) {
	// The task suggests polling once an hour: WaitTask returns in time
	// only if the stream tells it the task ended.
	url, gate, gets := gateTaskServer(t, true, time.Hour)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	id := startGate(ctx, t, c)

	type outcome struct {
		task *mcp.Task
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		task, err := c.WaitTask(ctx, id)
		done <- outcome{task, err}
	}()
	// WaitTask reads the task once its stream is acknowledged; only then
	// does the task end.
	waitGet(t, gets)
	close(gate)
	got := <-done
	if got.err != nil || got.task.Status != mcp.TaskCompleted || got.task.TaskID != id {
		t.Fatalf("WaitTask: %+v %v", got.task, got.err)
	}
	select {
	case <-gets:
		t.Fatal("WaitTask read the task again instead of using the notification")
	default:
	}
	// A finished task is returned at once.
	if task, err := c.WaitTask(ctx, id); err != nil || task.Status != mcp.TaskCompleted {
		t.Fatalf("WaitTask of a finished task: %+v %v", task, err)
	}
}

func TestWaitTaskPollsWithoutAListenStream(t *testing.T) {
	url, gate, gets := gateTaskServer(t, false, 5*time.Millisecond)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	id := startGate(ctx, t, c)

	var je *jsonrpc.Error
	if _, err := c.ListenTasks(ctx, id); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("ListenTasks without listen streams: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		task, err := c.WaitTask(ctx, id)
		if err == nil && task.Status != mcp.TaskCompleted {
			err = errors.New("WaitTask returned status " + string(task.Status))
		}
		done <- err
	}()
	// It polls: a second tasks/get comes while the task still works.
	waitGet(t, gets)
	waitGet(t, gets)
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWaitTaskEndsWithItsContext(t *testing.T) {
	url, _, gets := gateTaskServer(t, true, time.Hour)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	id := startGate(ctx, t, c)
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitTask(wctx, id)
		done <- err
	}()
	waitGet(t, gets)
	wcancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitTask after its context ended: %v", err)
	}
	if err := c.CancelTask(ctx, id); err != nil {
		t.Fatal(err)
	}
}

func TestAwaitTaskAnswersInputHeardOnTheStream(t *testing.T) {
	// The task suggests polling once an hour: AwaitTask finishes in time
	// only if the stream tells it of the input request and the end.
	url, _, _ := gateTaskServer(t, true, time.Hour)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url}, client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	task, _, err := c.StartTool(ctx, "ask", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool(ask): %+v %v", task, err)
	}
	res, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil || mcp.TextOf(res.Content) != "answered accept" {
		t.Fatalf("AwaitTask: %+v %v", res, err)
	}
}

func TestWaitTaskReturnsAFailedRead(t *testing.T) {
	url, _, gets := gateTaskServer(t, false, 5*time.Millisecond)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	id := startGate(ctx, t, c)
	if _, err := c.WaitTask(ctx, "AAAAAAAAAAAAAAAAAAAAAAAAAA"); err == nil {
		t.Fatal("WaitTask of an unknown task succeeded")
	}
	waitGet(t, gets)
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitTask(ctx, id)
		done <- err
	}()
	// Polling, a read fails once the client is closed: WaitTask returns
	// that error.
	waitGet(t, gets)
	waitGet(t, gets)
	_ = c.Close()
	if err := <-done; !errors.Is(err, client.ErrClosed) {
		t.Fatalf("WaitTask after Close: %v", err)
	}
}

func TestTaskStatusOverStdio(t *testing.T) {
	rt, sup, gate, _ := gateRuntime(t, true, time.Hour)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		served <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("stdio.Serve: %v", err)
			}
		case <-time.After(testkit.DefaultTimeout):
			t.Error("stdio.Serve did not return")
		}
		outR.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	c, err := client.New(ctx, &client.StreamTransport{Reader: outR, Writer: inW})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := startGate(ctx, t, c)
	sub, err := c.ListenTasks(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := sub.Acknowledged().Keys[mcp.FilterTaskIDs]; !slices.Equal(got, []string{id}) {
		t.Fatalf("acknowledged %v", got)
	}
	close(gate)
	ev, err := sub.Next(ctx)
	if err != nil || ev.Task == nil || ev.Task.TaskID != id || ev.Task.Status != mcp.TaskCompleted {
		t.Fatalf("status over stdio: %+v %v", ev, err)
	}
	if final, err := c.WaitTask(ctx, id); err != nil || final.Status != mcp.TaskCompleted {
		t.Fatalf("WaitTask over stdio: %+v %v", final, err)
	}
}
