package proxy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// tasksRemote serves "watch", which runs as a task until cancelled, and
// "quick", which runs as a task and completes, with status changes on
// listen streams.
func tasksRemote(t *testing.T) (*dispatch.Runtime, *supervisor.Supervisor) {
	t.Helper()
	ctx := context.Background()
	runner, err := tasks.New(tasks.WithTools(tasks.Tool{Name: "watch", Support: tasks.Optional}, tasks.Tool{Name: "quick", Support: tasks.Optional},
		tasks.Tool{Name: "named", Support: tasks.Required}),
		// named asks for a name before its task exists.
		tasks.WithDecision(func(_ context.Context, c *tasks.Call) bool { return c.Tool != "named" || c.HasInput }))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "tasker", Version: "1.0.0"}, dispatch.WithLogger(quiet), runner.Option(),
		dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTool(mcp.Tool{Name: "watch"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		dispatch.WithTool(mcp.Tool{Name: "named"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			ans, ok := req.Input.Elicitation("name")
			if !ok {
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"name": mcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
				}}
			}
			return mcp.TextResult("hi " + ans.Content["name"].(string)), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "quick"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("done"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Start(ctx, rt, sup); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := runner.Close(ctx); err != nil {
			t.Errorf("runner.Close: %v", err)
		}
		if err := sup.Close(ctx); err != nil {
			t.Errorf("sup.Close: %v", err)
		}
	})
	return rt, sup
}

// A task created through the proxy is the remote's: it is read, followed
// on a listen stream and cancelled through the proxy as directly, its
// status notification relayed, and a task that completes gives its
// result through tasks/get.
func TestProxyRelaysTasks(t *testing.T) {
	for _, over := range []string{"inprocess", "http"} {
		t.Run(over, func(t *testing.T) {
			rt, sup := tasksRemote(t)
			var tr client.Transport = inprocess.New(rt)
			if over == "http" {
				tr = &client.HTTPTransport{URL: testfixture.StartHTTPWith(t, sup, rt).URL()}
			}
			b := dial(t, tr)
			if _, ok := b.Runtime().Capabilities().Extensions[mcp.ExtensionTasks]; !ok {
				t.Fatalf("the proxy does not offer the remote's tasks: %+v", b.Runtime().Capabilities())
			}
			c := testkit.Connect(t, inprocess.New(b.Runtime()))
			ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
			defer cancel()
			task, res, err := c.StartTool(ctx, "watch", nil)
			if err != nil || task == nil || res != nil {
				t.Fatalf("StartTool through the proxy: %+v %+v %v", task, res, err)
			}
			sub, err := c.ListenTasks(ctx, task.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			if ids := sub.Acknowledged().Keys[mcp.FilterTaskIDs]; len(ids) != 1 || ids[0] != task.TaskID {
				t.Fatalf("acknowledged %v", ids)
			}
			got, err := c.GetTask(ctx, task.TaskID)
			if err != nil || got.TaskID != task.TaskID || got.Status != mcp.TaskWorking {
				t.Fatalf("GetTask through the proxy: %+v %v", got, err)
			}
			if err := c.CancelTask(ctx, task.TaskID); err != nil {
				t.Fatal(err)
			}
			ev, err := sub.Next(ctx)
			if err != nil || ev.Method != mcp.NotificationTasks || ev.Task == nil || ev.Task.TaskID != task.TaskID || ev.Task.Status != mcp.TaskCancelled {
				t.Fatalf("the relayed status: %+v %v", ev, err)
			}
			final, err := c.WaitTask(ctx, task.TaskID)
			if err != nil || final.Status != mcp.TaskCancelled {
				t.Fatalf("WaitTask: %+v %v", final, err)
			}

			quick, _, err := c.StartTool(ctx, "quick", nil)
			if err != nil || quick == nil {
				t.Fatalf("StartTool quick: %v", err)
			}
			out, err := c.AwaitTask(ctx, quick.TaskID)
			if err != nil || text(t, out) != "done" {
				t.Fatalf("AwaitTask through the proxy: %+v %v", out, err)
			}
			// Without the extension declared, the call is ordinary.
			plain, err := c.CallTool(ctx, "quick", nil)
			if err != nil || text(t, plain) != "done" {
				t.Fatalf("an ordinary call: %+v %v", plain, err)
			}
		})
	}
}

// At most MaxFollowedTasks tasks have their status relayed at once; the
// others are still reached with tasks/get.
func TestProxyBoundsFollowedTasks(t *testing.T) {
	rt, _ := tasksRemote(t)
	b := dial(t, inprocess.New(rt), proxy.WithLimits(proxy.Limits{MaxFollowedTasks: 1}))
	c := testkit.Connect(t, inprocess.New(b.Runtime()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	var ids []string
	for range 2 {
		task, _, err := c.StartTool(ctx, "watch", nil)
		if err != nil || task == nil {
			t.Fatalf("StartTool: %v", err)
		}
		ids = append(ids, task.TaskID)
	}
	if h := b.Health(); h.FollowedTasks != 1 {
		t.Fatalf("health with two tasks and a bound of one: %+v", h)
	}
	for _, id := range ids {
		if err := c.CancelTask(ctx, id); err != nil {
			t.Fatal(err)
		}
		if final, err := c.WaitTask(ctx, id); err != nil || final.Status != mcp.TaskCancelled {
			t.Fatalf("task %s: %+v %v", id, final, err)
		}
	}
}

// A tool that asks for input before its task exists: the input goes back
// through the proxy as an input_required result, and the retry with the
// answer creates the task upstream, whose result the client awaits.
func TestProxyTaskAfterInput(t *testing.T) {
	rt, _ := tasksRemote(t)
	b := dial(t, inprocess.New(rt))
	c := testkit.Connect(t, inprocess.New(b.Runtime()), answering()...)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	task, res, err := c.StartTool(ctx, "named", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool: %+v %+v %v", task, res, err)
	}
	out, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil || text(t, out) != "hi Ada" {
		t.Fatalf("AwaitTask: %+v %v", out, err)
	}
}
