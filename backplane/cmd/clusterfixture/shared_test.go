package main

// 2026-07-28 through the proxy, each request's instance known (every
// instance counts the requests it reads): a list change triggered on
// one instance reaches a listen stream on another and every instance's
// lists, and a task created through one instance is followed, read and
// answered through the others.

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/examples/everything/fixture"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestSharedListChangesReachEveryInstance(t *testing.T) {
	f := startFleet(t)
	c := f.connect(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	var sub *client.Subscription
	holder := f.on(t, func() (err error) {
		sub, err = c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
		return err
	})
	defer sub.Close()
	for _, added := range []bool{true, false} {
		var res *mcp.CallToolResult
		caller := f.on(t, func() (err error) {
			res, err = c.CallTool(ctx, "test_trigger_tool_change", nil)
			return err
		})
		if caller == holder {
			t.Fatalf("the trigger ran on i%d, the stream's instance", caller)
		}
		if text := mcp.TextOf(res.Content); strings.HasPrefix(text, "Added") != added {
			t.Fatalf("trigger on i%d: %q, want added = %v", caller, text, added)
		}
		ev, err := sub.Next(ctx)
		if err != nil || ev.Method != "notifications/tools/list_changed" {
			t.Fatalf("the stream on i%d after the trigger on i%d: %+v %v", holder, caller, ev, err)
		}
		// The trigger returned once every instance applied it: each lists
		// what it left.
		seen := map[int]bool{}
		for range len(f.instances) {
			var tools []mcp.Tool
			i := f.on(t, func() (err error) {
				tools, err = c.ListTools(ctx)
				return err
			})
			seen[i] = true
			if has := slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return tl.Name == fixture.DynamicToolName }); has != added {
				t.Fatalf("tools/list on i%d after the trigger on i%d lists %s: %v, want %v", i, caller, fixture.DynamicToolName, has, added)
			}
		}
		if len(seen) != len(f.instances) {
			t.Fatalf("three lists reached %v", seen)
		}
	}
	_ = sub.Close()
	_ = c.Close()
	f.stop(t)
}

func TestSharedTasksReachEveryInstance(t *testing.T) {
	f := startFleet(t)
	asked := make(chan struct{}, 1)
	c := f.connect(t, []client.Option{client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		return &mcp.ElicitResult{Action: "decline"}, nil
	})})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()

	// The task's handler runs on runner and asks for input there.
	var task *mcp.Task
	runner := f.on(t, func() (err error) {
		task, _, err = c.StartTool(ctx, "confirm_delete", map[string]any{"filename": "a.txt"})
		return err
	})
	if task == nil {
		t.Fatal("confirm_delete did not start a task")
	}
	var sub *client.Subscription
	holder := f.on(t, func() (err error) {
		sub, err = c.ListenTasks(ctx, task.TaskID)
		return err
	})
	defer sub.Close()
	if holder == runner || !slices.Contains(sub.Acknowledged().Keys[mcp.FilterTaskIDs], task.TaskID) {
		t.Fatalf("the stream on i%d (the task runs on i%d) follows %v", holder, runner, sub.Acknowledged().Keys)
	}
	var got *mcp.Task
	reader := f.on(t, func() (err error) {
		got, err = c.GetTask(ctx, task.TaskID)
		return err
	})
	if reader == runner {
		t.Fatalf("tasks/get ran on i%d, the task's instance", reader)
	}
	if got.Status == mcp.TaskWorking {
		// It asks later than the stream opened: the stream hears it.
		got = nextTask(ctx, t, sub)
	}
	if got.Status != mcp.TaskInputRequired || len(got.InputRequests) != 1 {
		t.Fatalf("the task through i%d: %+v", reader, got)
	}
	// The answer goes through the third instance, neither the task's nor
	// the stream's: whichever runs the task's next round, its completion
	// reaches the stream through the backplane's Events.
	third := 3 - runner - holder
	for f.next() != third {
		if _, err := c.GetTask(ctx, task.TaskID); err != nil {
			t.Fatal(err)
		}
	}
	answers := map[string]any{}
	for key := range got.InputRequests {
		answers[key] = mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	}
	if updater := f.on(t, func() error { return c.UpdateTask(ctx, task.TaskID, answers) }); updater != third {
		t.Fatalf("tasks/update ran on i%d, want i%d", updater, third)
	}
	for got.Status != mcp.TaskCompleted {
		got = nextTask(ctx, t, sub)
		if got.Status == mcp.TaskFailed || got.Status == mcp.TaskCancelled {
			t.Fatalf("the task ended %+v", got)
		}
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(got.Result, &res); err != nil || mcp.TextOf(res.Content) != "Deleted a.txt" {
		t.Fatalf("the task's result on the stream: %s %v", got.Result, err)
	}
	select {
	case <-asked:
		t.Fatal("the client's elicitation handler was asked; the input went through tasks/update")
	default:
	}
	_ = sub.Close()
	_ = c.Close()
	f.stop(t)
}

// nextTask returns the task of the stream's next event, which must be a
// notifications/tasks.
func nextTask(ctx context.Context, t *testing.T, sub *client.Subscription) *mcp.Task {
	t.Helper()
	ev, err := sub.Next(ctx)
	if err != nil || ev.Task == nil {
		t.Fatalf("the stream's next event: %+v %v", ev, err)
	}
	return ev.Task
}

// testFleet is the deployment started in process, with its log.
type testFleet struct {
	*fleet
	log *testfixture.Buffer
}

// startFleet starts three instances without initialize-era sessions.
func startFleet(t *testing.T) *testFleet {
	t.Helper()
	log := &testfixture.Buffer{}
	f, err := serve(3, false, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	return &testFleet{fleet: f, log: log}
}

// connect returns a 2026-07-28 client of the proxy.
func (f *testFleet) connect(t *testing.T, opts []client.Option) *client.Client {
	t.Helper()
	opts = append(opts, client.WithProtocolVersions(mcp.Version20260728))
	return testkit.Connect(t, &client.HTTPTransport{URL: "http://" + f.front.Addr + "/mcp"}, opts...)
}

// on runs send, which sends one request through the proxy, and returns
// the index of the instance that read it.
func (f *testFleet) on(t *testing.T, send func() error) int {
	t.Helper()
	before := f.served()
	if err := send(); err != nil {
		t.Fatal(err)
	}
	after := f.served()
	at := -1
	for i := range after {
		switch d := after[i] - before[i]; {
		case d == 1 && at < 0:
			at = i
		case d != 0:
			t.Fatalf("requests read per instance went from %v to %v", before, after)
		}
	}
	if at < 0 {
		t.Fatalf("no instance read the request (%v)", before)
	}
	return at
}

// served returns the requests each instance has read.
func (f *testFleet) served() []int64 {
	n := make([]int64, len(f.instances))
	for i, in := range f.instances {
		n[i] = in.served.Load()
	}
	return n
}

// next returns the index of the instance the proxy sends the next
// request to.
func (f *testFleet) next() int {
	return int(f.front.next.Load() % uint64(len(f.instances)))
}

// stop stops the deployment, which must log no error.
func (f *testFleet) stop(t *testing.T) {
	t.Helper()
	f.fleet.stop(slog.New(slog.NewTextHandler(f.log, nil)))
	if strings.Contains(f.log.String(), "level=ERROR") {
		t.Fatalf("errors logged:\n%s", f.log.String())
	}
}
