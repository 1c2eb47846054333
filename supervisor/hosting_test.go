package supervisor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// hostActor is one of the application's own actors: it answers a ping
// with what it has seen besides pings and its own lifecycle.
type hostActor struct{ other []string }

type ping struct{ reply chan []string }

func (a *hostActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *ping:
		m.reply <- append([]string(nil), a.other...)
	case *actor.Started, *actor.Stopping, *actor.Stopped:
	default:
		a.other = append(a.other, fmt.Sprintf("%T", m))
	}
}

func pingActor(t *testing.T, sys *actor.ActorSystem, pid *actor.PID) []string {
	t.Helper()
	reply := make(chan []string, 1)
	sys.Root.Send(pid, &ping{reply: reply})
	select {
	case seen := <-reply:
		return seen
	case <-time.After(testkit.DefaultTimeout):
		t.Fatalf("the application's actor %s does not answer", pid.Id)
		return nil
	}
}

// ours lists the ids registered in sys under prefix.
func registeredUnder(sys *actor.ActorSystem, prefix string) []string {
	var ids []string
	for _, m := range sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range m.Keys() {
			if id == prefix || strings.HasPrefix(id, prefix+"/") {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// The tree runs in the application's actor system, under the actor the
// application names; closing it stops everything it started and nothing
// else: the application's actors keep running, untouched, and the system
// keeps serving.
func TestHostedTreeStopsOnlyWhatItStarted(t *testing.T) {
	host := hostSystem()
	parent := host.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &hostActor{} }))
	sibling := host.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &hostActor{} }))
	defer func() {
		host.Root.Stop(sibling)
		host.Root.Stop(parent)
	}()
	rt := quietRuntime(t, dispatch.WithTool(mcp.Tool{Name: "say"}, supervisor.Named("room").Tool()),
		dispatch.WithTool(mcp.Tool{Name: "host"}, supervisor.PID(sibling).Tool()))
	sup, err := supervisor.New(rt, supervisor.WithActorSystem(host, parent))
	if err != nil {
		t.Fatal(err)
	}
	if sup.ActorSystem() != host {
		t.Fatal("the tree does not report the application's system")
	}
	room := spawn(t, sup, "room", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), nil)
	root := parent.Id + "/snodo"
	if room.Id != root+"/app/room" {
		t.Fatalf("the application's actor is %s, want it under %s", room.Id, root)
	}
	srv := testkit.StartStdioWith(t, sup, rt)
	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "hi"})); got != "1: hi" {
		t.Fatalf("reply %q", got)
	}
	tree := sup.Tree()
	if tree.ID != root || testkit.Find(tree, "connection") == nil {
		t.Fatalf("tree:\n%s", tree)
	}
	if r := testkit.Find(tree, "actor"); r == nil || r.ID != room.Id || r.Attrs["said"] != "1" {
		t.Fatalf("the room in the tree: %+v", r)
	}
	if len(registeredUnder(host, root)) == 0 {
		t.Fatal("nothing of the tree is registered in the application's system")
	}

	srv.Client.ExpectStop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(t); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("the transport under a closed tree ended with %v", err)
	}
	if left := registeredUnder(host, root); len(left) != 0 {
		t.Fatalf("actors of the closed tree still registered: %v", left)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
	for _, pid := range []*actor.PID{parent, sibling} {
		if seen := pingActor(t, host, pid); len(seen) != 0 {
			t.Fatalf("the application's actor %s received %v from the tree", pid.Id, seen)
		}
	}
	// The system still serves the application.
	late := host.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &hostActor{} }))
	pingActor(t, host, late)
	host.Root.Stop(late)
}

// When the application stops the actor a tree runs under, the tree stops
// with it: its transports end, and Close afterwards only releases what is
// left.
func TestHostedTreeStopsWithItsParent(t *testing.T) {
	host := hostSystem()
	parent := host.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &hostActor{} }))
	rt := quietRuntime(t)
	sup, err := supervisor.New(rt, supervisor.WithActorSystem(host, parent))
	if err != nil {
		t.Fatal(err)
	}
	spawn(t, sup, "room", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), restartAlways())
	srv := testkit.StartStdioWith(t, sup, rt)
	// The connection is up before the parent stops.
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("connection") == 1 })
	srv.Client.ExpectStop()
	if _, err := supervisor.New(rt, supervisor.WithActorSystem(host, parent)); err == nil || !strings.Contains(err.Error(), "already runs") {
		t.Fatalf("a second tree under the same parent: %v", err)
	}

	host.Root.Stop(parent)
	if err := srv.Wait(t); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("the transport ended with %v", err)
	}
	if _, err := sup.Spawn("late", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), nil); err == nil {
		t.Fatal("Spawn in a stopped tree")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := registeredUnder(host, parent.Id); len(left) != 0 {
		t.Fatalf("still registered: %v", left)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

func TestWithActorSystemRefusesBadArguments(t *testing.T) {
	rt := quietRuntime(t)
	if _, err := supervisor.New(rt, supervisor.WithActorSystem(nil, nil)); err == nil || !strings.Contains(err.Error(), "WithActorSystem: nil actor system") {
		t.Fatalf("nil system: %v", err)
	}
	host := hostSystem()
	if _, err := supervisor.New(rt, supervisor.WithActorSystem(host, actor.NewPID(host.Address(), "nobody"))); err == nil || !strings.Contains(err.Error(), "not a live actor") {
		t.Fatalf("missing parent: %v", err)
	}
}

// announcer publishes and notifies through the application node and
// answers each call with the outcome it was told.
type announcer struct {
	app  *actor.PID
	call *supervisor.ToolCall
}

func (a *announcer) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		a.call = m
		var args struct{ Kind, Conn, Method string }
		_ = json.Unmarshal(m.Request.Arguments, &args)
		switch args.Kind {
		case "publish":
			c.Request(a.app, &supervisor.Publish{Event: dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "room:///lobby"}})
		case "notify":
			c.Request(a.app, &supervisor.Notify{Conn: args.Conn, Method: args.Method, Params: map[string]any{"text": "hello"}})
		}
	case *supervisor.Published:
		c.Send(a.call.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("matched=%d err=%v", m.Result.Matched, m.Err))})
	case *supervisor.Notified:
		c.Send(a.call.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("err=%v invalid=%v noconn=%v", m.Err,
			errors.Is(m.Err, stdio.ErrInvalidNotification), errors.Is(m.Err, supervisor.ErrNoConnection)))})
	}
}

// An application actor publishes to the hub and notifies a stdio
// connection by sending messages to the application node, and hears the
// outcome as a message: a listen stream sees the update; the
// notification is written as Conn.Notify writes it, with the same
// allow-list and errors.
func TestActorsPublishAndNotify(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt := quietRuntime(t, dispatch.WithSubscriptions(hub),
		dispatch.WithResource(mcp.Resource{URI: "room:///lobby", Name: "lobby"}, func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents("room:///lobby", "text/plain", "")}}, nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "announce"}, supervisor.Named("announcer").Tool()))
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
	})
	app, err := sup.ApplicationPID()
	if err != nil {
		t.Fatal(err)
	}
	spawn(t, sup, "announcer", actor.PropsFromProducer(func() actor.Actor { return &announcer{app: app} }), nil)
	srv := testkit.StartStdioWith(t, sup, rt, stdio.WithName("main"), stdio.WithNotificationMethods("notifications/chat"))

	srv.Send(t, testkit.Request("L", dispatch.MethodListen, map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"room:///lobby"}}}))
	if _, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Method == "notifications/subscriptions/acknowledged" }); err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, callTool(t, srv, "announce", map[string]any{"kind": "publish"})); got != "matched=1 err=<nil>" {
		t.Fatalf("publish: %q", got)
	}
	if _, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool {
		return f.Method == "notifications/resources/updated" && strings.Contains(string(f.Params), `"uri":"room:///lobby"`)
	}); err != nil {
		t.Fatalf("the listen stream never saw the update: %v", err)
	}

	if got := toolText(t, callTool(t, srv, "announce", map[string]any{"kind": "notify", "conn": "main", "method": "notifications/chat"})); got != "err=<nil> invalid=false noconn=false" {
		t.Fatalf("notify: %q", got)
	}
	if f, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Method == "notifications/chat" }); err != nil || string(f.Params) != `{"text":"hello"}` {
		t.Fatalf("the notification: %+v %v", f, err)
	}
	if got := toolText(t, callTool(t, srv, "announce", map[string]any{"kind": "notify", "conn": "main", "method": "notifications/other"})); !strings.Contains(got, "invalid=true") {
		t.Fatalf("a method not allowed: %q", got)
	}
	if got := toolText(t, callTool(t, srv, "announce", map[string]any{"kind": "notify", "conn": "nobody", "method": "notifications/chat"})); !strings.Contains(got, "noconn=true") {
		t.Fatalf("an unknown connection: %q", got)
	}
}

// A tree given no hub answers a Publish with ErrNoHub.
func TestPublishWithoutAHub(t *testing.T) {
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		app, err := sup.ApplicationPID()
		if err != nil {
			t.Fatal(err)
		}
		spawn(t, sup, "announcer", actor.PropsFromProducer(func() actor.Actor { return &announcer{app: app} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "announce"}, supervisor.Named("announcer").Tool()))
	if got := toolText(t, callTool(t, srv, "announce", map[string]any{"kind": "publish"})); got != "matched=0 err="+supervisor.ErrNoHub.Error() {
		t.Fatalf("publish without a hub: %q", got)
	}
}
