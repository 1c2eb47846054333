package backplane_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

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

// testLease is the lease of the instances these tests start: short, so
// that a killed instance is noticed quickly, and long enough that a
// renewal every third of it lands on a loaded machine.
const testLease = 2 * time.Second

// member is one instance of a server whose tasks live in a shared bucket:
// its own NATS connection, task store, Events, Runner and client.
type member struct {
	name   string
	nc     *nats.Conn
	store  *backplane.TaskStore
	client *client.Client
}

// handlerLog is what the tool "work" reports: the instance whose handler
// started, and the one whose handler's context ended.
type handlerLog struct {
	started chan string
	stopped chan string
}

func newHandlerLog() *handlerLog {
	return &handlerLog{started: make(chan string, 16), stopped: make(chan string, 16)}
}

// wait returns the next instance name on ch, failing after 10 s.
func (h *handlerLog) wait(t *testing.T, ch chan string, what string) string {
	t.Helper()
	select {
	case name := <-ch:
		return name
	case <-time.After(10 * time.Second):
		t.Fatalf("no handler %s within 10s", what)
		return ""
	}
}

// startMember starts an instance on ns whose tool "work" runs until its
// context ends, reporting to log.
func startMember(t *testing.T, ns *natsServer, name string, log *handlerLog) *member {
	t.Helper()
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	m := &member{name: name}
	m.nc = ns.connect(t, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	var err error
	m.store, err = backplane.NewTaskStore(ctx, m.nc, taskstore.Options{},
		backplane.WithName("tasks-cluster"), backplane.WithLease(testLease), backplane.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.store.Close() })
	events, err := backplane.NewEvents(ctx, m.nc, hub.New(hub.Options{}), backplane.WithName("tasks-cluster"), backplane.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = events.Close() })
	runner, err := tasks.New(tasks.WithStore(m.store), tasks.WithTools(tasks.Tool{Name: "work", Support: tasks.Optional}))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: name, Version: "1"},
		dispatch.WithLogger(quiet), runner.Option(), dispatch.WithSubscriptions(events),
		dispatch.WithTool(mcp.Tool{Name: "work", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				log.started <- name
				<-ctx.Done()
				log.stopped <- name
				return nil, ctx.Err()
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
	m.client, err = client.New(ctx, inprocess.New(rt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.client.Close() })
	return m
}

// TestTaskCancelledThroughAnotherInstanceStopsItsHandler creates a task on
// A, reads it, updates it and cancels it through B: B answers from the
// shared store, and the cancellation reaches A's handler, whose context
// ends.
func TestTaskCancelledThroughAnotherInstanceStopsItsHandler(t *testing.T) {
	ns := startNATS(t)
	log := newHandlerLog()
	a := startMember(t, ns, "a", log)
	b := startMember(t, ns, "b", log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	task, _, err := a.client.StartTool(ctx, "work", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool on A: %+v %v", task, err)
	}
	if got := log.wait(t, log.started, "start"); got != "a" {
		t.Fatalf("the handler started on %s", got)
	}
	if got, err := b.client.GetTask(ctx, task.TaskID); err != nil || got.Status != mcp.TaskWorking {
		t.Fatalf("tasks/get through B: %+v %v", got, err)
	}
	if err := b.client.UpdateTask(ctx, task.TaskID, map[string]any{"k": "v"}); err == nil {
		t.Fatal("tasks/update through B of a task that waits for no input was accepted")
	}
	if err := b.client.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	if got := log.wait(t, log.stopped, "stop"); got != "a" {
		t.Fatalf("the handler stopped on %s", got)
	}
	got, err := a.client.GetTask(ctx, task.TaskID)
	if err != nil || got.Status != mcp.TaskCancelled {
		t.Fatalf("tasks/get through A after the cancellation: %+v %v", got, err)
	}
}

// TestKilledInstanceTaskFailsWithinTheLease kills instance A mid-task (its
// NATS connection closed: no lease renewal, no write lands any more) and
// follows the task from B: within one and a half leases (plus two seconds
// for the server's TTL resolution and a loaded machine), B's lease sweep
// fails it with the message of a restart, and B's listen stream hears it.
func TestKilledInstanceTaskFailsWithinTheLease(t *testing.T) {
	ns := startNATS(t)
	log := newHandlerLog()
	a := startMember(t, ns, "a", log)
	b := startMember(t, ns, "b", log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	task, _, err := a.client.StartTool(ctx, "work", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool on A: %+v %v", task, err)
	}
	log.wait(t, log.started, "start")
	sub, err := b.client.ListenTasks(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	killed := time.Now()
	a.nc.Close()
	bound := testLease*3/2 + 2*time.Second
	wctx, wcancel := context.WithTimeout(ctx, bound+5*time.Second)
	defer wcancel()
	ev, err := sub.Next(wctx)
	took := time.Since(killed)
	if err != nil || ev.Task == nil || ev.Task.TaskID != task.TaskID {
		t.Fatalf("on B after A was killed: %+v %v", ev, err)
	}
	if ev.Task.Status != mcp.TaskFailed || ev.Task.StatusMessage != taskstore.StoppedMessage {
		t.Fatalf("B heard %s %q, want failed %q", ev.Task.Status, ev.Task.StatusMessage, taskstore.StoppedMessage)
	}
	if took > bound {
		t.Fatalf("the task failed %v after A was killed, more than the bound %v", took, bound)
	}
	got, err := b.client.GetTask(ctx, task.TaskID)
	if err != nil || got.Status != mcp.TaskFailed || got.StatusMessage != taskstore.StoppedMessage {
		t.Fatalf("tasks/get through B: %+v %v", got, err)
	}
	t.Logf("failed %v after the kill (lease %v)", took, testLease)
}

// TestLiveTaskSurvivesAnotherInstancesRecover starts instance C, and runs
// taskstore.Recover on B's store, while A runs a task: A holds its lease,
// so neither settles the task, and A's handler runs on until the task is
// cancelled through C.
func TestLiveTaskSurvivesAnotherInstancesRecover(t *testing.T) {
	ns := startNATS(t)
	log := newHandlerLog()
	a := startMember(t, ns, "a", log)
	b := startMember(t, ns, "b", log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	task, _, err := a.client.StartTool(ctx, "work", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool on A: %+v %v", task, err)
	}
	log.wait(t, log.started, "start")
	c := startMember(t, ns, "c", log) // its Start recovers the store
	if _, err := taskstore.Recover(ctx, b.store, "recovering-"+taskstore.NewID(), nil); err != nil {
		t.Fatal(err)
	}
	rec, err := b.store.Get(ctx, task.TaskID)
	if err != nil || rec.Status != taskstore.StatusWorking || rec.Revision != 1 {
		t.Fatalf("after C started and B recovered: %s at revision %d (%v)", rec.Status, rec.Revision, err)
	}
	select {
	case name := <-log.stopped:
		t.Fatalf("the handler on %s stopped", name)
	default:
	}
	if err := c.client.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	if got := log.wait(t, log.stopped, "stop"); got != "a" {
		t.Fatalf("the handler stopped on %s", got)
	}
}

// TestCancellationReachesTheRunnerAfterANATSRestart restarts NATS while A
// runs a task, then cancels it through B: A's watch of the records
// resumed with the connection, and the handler stops.
func TestCancellationReachesTheRunnerAfterANATSRestart(t *testing.T) {
	ns := startNATS(t)
	log := newHandlerLog()
	a := startMember(t, ns, "a", log)
	b := startMember(t, ns, "b", log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	task, _, err := a.client.StartTool(ctx, "work", nil)
	if err != nil || task == nil {
		t.Fatalf("StartTool on A: %+v %v", task, err)
	}
	log.wait(t, log.started, "start")
	backA := a.nc.StatusChanged(nats.CONNECTED)
	backB := b.nc.StatusChanged(nats.CONNECTED)
	defer a.nc.RemoveStatusListener(backA)
	defer b.nc.RemoveStatusListener(backB)
	ns.stop()
	ns.start()
	for _, ch := range []chan nats.Status{backA, backB} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("an instance did not reconnect in 30 s")
		}
	}
	if err := b.client.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	if got := log.wait(t, log.stopped, "stop"); got != "a" {
		t.Fatalf("the handler stopped on %s", got)
	}
	// A's lease outlived the restart: no sweep failed the task before the
	// cancellation.
	if got, err := b.client.GetTask(ctx, task.TaskID); err != nil || got.Status != mcp.TaskCancelled {
		t.Fatalf("tasks/get through B: %+v %v", got, err)
	}
}
