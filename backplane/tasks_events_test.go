package backplane_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// Events is what a task runner publishes its tasks' status changes
// through when a Runtime's subscription source is Events.
var _ tasks.Publisher = (*backplane.Events)(nil)

// taskInstance starts an instance whose tasks live in the shared store and
// whose listen streams are served through Events; its tool "gate" runs
// until gate is closed. It returns a client of the instance.
func taskInstance(t *testing.T, ns *natsServer, name string, gate chan struct{}) *client.Client {
	t.Helper()
	ctx := context.Background()
	nc := ns.connect(t)
	store := openStore(t, nc, "tasks-events", taskstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	events, err := backplane.NewEvents(ctx, nc, hub.New(hub.Options{}), backplane.WithName("tasks-events"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = events.Close() })
	runner, err := tasks.New(tasks.WithStore(store), tasks.WithTools(tasks.Tool{Name: "gate", Support: tasks.Optional}))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: name, Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)), runner.Option(), dispatch.WithSubscriptions(events),
		dispatch.WithTool(mcp.Tool{Name: "gate", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-gate:
					return mcp.TextResult("opened on " + name), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
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
		_ = runner.Close(ctx)
		_ = sup.Close(ctx)
	})
	c, err := client.New(ctx, inprocess.New(rt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestTaskStatusReachesListenersOnOtherInstances runs a task on instance
// A and follows it from instance B: B finds the task in the shared store
// when the stream opens, and the status change A publishes reaches B's
// stream through NATS.
func TestTaskStatusReachesListenersOnOtherInstances(t *testing.T) {
	ns := startNATS(t)
	gate := make(chan struct{})
	a := taskInstance(t, ns, "a", gate)
	b := taskInstance(t, ns, "b", make(chan struct{}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	task, _, err := a.StartTool(ctx, "gate", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool on A: %+v %v", task, err)
	}
	sub, err := b.ListenTasks(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := sub.Acknowledged().Keys[mcp.FilterTaskIDs]; !slices.Equal(got, []string{task.TaskID}) {
		t.Fatalf("B follows %v, want the task A runs", got)
	}
	close(gate)
	ev, err := sub.Next(ctx)
	if err != nil || ev.Task == nil || ev.Task.TaskID != task.TaskID || ev.Task.Status != mcp.TaskCompleted {
		t.Fatalf("on B: %+v %v", ev, err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(ev.Task.Result, &res); err != nil || mcp.TextOf(res.Content) != "opened on a" {
		t.Fatalf("result heard on B: %s", ev.Task.Result)
	}
}
