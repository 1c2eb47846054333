package backplane_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/taskstore"
)

// nextEvent waits for the listener's next event.
func nextEvent(t *testing.T, l *hub.Listener, wake <-chan struct{}) dispatch.Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if ev, err := l.Next(); err == nil {
			return ev
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("no event in 20 s")
		}
	}
}

// TestLocalOnlyStart starts Events, Catalog and TaskStore on a connection
// whose server is down: without WithLocalOnlyStart each fails with
// ErrUnavailable; with it each starts, serves this instance (events reach
// its own listeners; the catalog and the task store refuse changes with
// ErrUnavailable), and once the server is up each joins another instance.
func TestLocalOnlyStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := startNATS(t)
	url := ns.URL()
	ns.stop()
	nc, err := nats.Connect(url, nats.RetryOnFailedConnect(true), nats.ReconnectWait(20*time.Millisecond), nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	up := nc.StatusChanged(nats.CONNECTED)
	defer nc.RemoveStatusListener(up)
	hb := hub.New(hub.Options{})
	var defs backplane.Definitions
	defs.DefineTool(mcp.Tool{Name: "x", InputSchema: emptyObject}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("x"), nil
	})
	name := backplane.WithName("local")

	if _, err := backplane.NewEvents(ctx, nc, hb, name); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("NewEvents without the option: %v", err)
	}
	if _, err := backplane.NewCatalog(ctx, nc, hb, &defs, name); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("NewCatalog without the option: %v", err)
	}
	if _, err := backplane.NewTaskStore(ctx, nc, taskstore.Options{}, name); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("NewTaskStore without the option: %v", err)
	}

	local := backplane.WithLocalOnlyStart()
	events, err := backplane.NewEvents(ctx, nc, hb, name, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = events.Close() })
	cat, err := backplane.NewCatalog(ctx, nc, hb, &defs, name, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	store, err := backplane.NewTaskStore(ctx, nc, taskstore.Options{}, name, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	tree := func(id string) func() *supervisor.Node {
		return func() *supervisor.Node { return &supervisor.Node{Kind: "supervisor", ID: id} }
	}
	if _, err := backplane.NewClusterView(ctx, nc, "a", tree("a"), name); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("NewClusterView without the option: %v", err)
	}
	view, err := backplane.NewClusterView(ctx, nc, "a", tree("a"), name, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = view.Close() })
	if trees, _ := view.Trees(ctx); len(trees.Trees) != 1 || trees.Trees[0].Instance != "a" {
		t.Errorf("the local view's trees: %+v", trees)
	}

	wake := make(chan struct{}, 1)
	l := hb.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	if _, err := events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///a"}); err != nil {
		t.Fatalf("publishing while local: %v", err)
	}
	if ev := nextEvent(t, l, wake); ev.Kind != dispatch.EventResourceUpdated {
		t.Fatalf("the local listener got %+v", ev)
	}
	if _, err := cat.Add(ctx, backplane.Tool("x")); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("Catalog.Add while local: %v", err)
	}
	rec := taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Status: taskstore.StatusWorking, TTL: time.Hour}
	if _, _, err := store.Create(ctx, rec); !errors.Is(err, backplane.ErrUnavailable) {
		t.Errorf("TaskStore.Create while local: %v", err)
	}

	ns.start()
	select {
	case <-up:
	case <-ctx.Done():
		t.Fatal("no connection in 30 s")
	}
	// Joining resynchronises the listeners: a tool-list change, once the
	// subscription is on the server.
	if ev := nextEvent(t, l, wake); ev.Kind != dispatch.EventToolsListChanged {
		t.Fatalf("joining: the listener got %+v, want the resynchronisation", ev)
	}

	// Another instance, started normally.
	nc2 := ns.connect(t)
	hub2 := hub.New(hub.Options{})
	events2, err := backplane.NewEvents(ctx, nc2, hub2, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = events2.Close() })
	cat2, err := backplane.NewCatalog(ctx, nc2, hub2, &defs, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat2.Close() })
	store2, err := backplane.NewTaskStore(ctx, nc2, taskstore.Options{}, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store2.Close() })

	if _, err := events2.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///a"}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, l, wake); ev.Kind != dispatch.EventResourceUpdated {
		t.Fatalf("the joined listener got %+v from the other instance", ev)
	}
	v, err := cat2.Add(ctx, backplane.Tool("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Wait(ctx, v); err != nil {
		t.Fatalf("the catalog started local did not join: %v (%+v)", err, cat.Stats())
	}
	if st := cat.Stats(); st.Added != 1 {
		t.Fatalf("the joined catalog: %+v", st)
	}
	if _, _, err := store.Create(ctx, rec); err != nil {
		t.Fatalf("TaskStore.Create after joining: %v", err)
	}
	if got, err := store2.Get(ctx, rec.ID); err != nil || got.ID != rec.ID {
		t.Fatalf("the other instance reads %+v, %v", got, err)
	}
	// The view subscribed while local answers the other instance's
	// requests once connected.
	view2, err := backplane.NewClusterView(ctx, nc2, "b", tree("b"), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = view2.Close() })
	for {
		trees, err := view2.Trees(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(trees.Trees) == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the other instance's view never got the joined one's tree: %+v", trees)
		}
	}
}
