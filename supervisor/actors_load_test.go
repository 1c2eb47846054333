package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

const concurrentCalls = 1000

// gateActor holds every call until told to answer, then answers them in
// the order it received them, each with its place in that order.
type gateActor struct {
	full  chan<- []string // the call ids, in mailbox order, once all have arrived
	held  []*supervisor.ToolCall
	order []string
}

func (a *gateActor) Describe() map[string]string {
	return map[string]string{"held": strconv.Itoa(len(a.held)), "served": strconv.Itoa(len(a.order) - len(a.held))}
}

func (a *gateActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		a.held = append(a.held, m)
		a.order = append(a.order, m.ReplyTo.Id)
		if len(a.held) == concurrentCalls {
			a.full <- slices.Clone(a.order)
		}
	case *answerHeld:
		for i, m := range a.held {
			var args struct{ N int }
			_ = json.Unmarshal(m.Request.Arguments, &args)
			c.Send(m.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("%d:%d", args.N, i))})
		}
		a.held = nil
	}
}

// receive returns the next value on c, failing the test if none comes
// in time.
func receive[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("nothing arrived in time")
		var zero T
		return zero
	}
}

// callNumber is the sequence number that ends a call actor's id
// (call$f → 15; protoactor writes it in base 64 with the digits below):
// the application node starts call actors, and each sends its call on
// being started, one after the other, so these numbers increase in the
// order the calls were sent to their target.
func callNumber(t *testing.T, id string) int {
	t.Helper()
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ~+"
	n := 0
	for _, r := range id[strings.LastIndex(id, "$")+1:] {
		d := strings.IndexRune(digits, r)
		if d < 0 {
			t.Fatalf("call actor id %q", id)
		}
		n = n*64 + d
	}
	return n
}

// sendCalls sends n concurrent tools/call requests for tool, with ids
// and argument N from 0 to n-1, and returns the text of each response,
// indexed by id; every request gets exactly one response.
func sendCalls(t *testing.T, srv *testkit.StdioServer, tool string, n int) {
	t.Helper()
	for i := range n {
		srv.Send(t, testkit.Request(i, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"n": i}}))
	}
}

func awaitCalls(t *testing.T, srv *testkit.StdioServer, n int) []string {
	t.Helper()
	texts := make([]string, n)
	for i := range n {
		texts[i] = toolText(t, srv.Client.AwaitResponse(t, strconv.Itoa(i)))
	}
	responses := map[string]int{}
	for _, f := range srv.Client.Frames() {
		if f.Method == "" {
			responses[string(f.ID)]++
		}
	}
	if len(responses) != n {
		t.Fatalf("%d distinct responses for %d calls", len(responses), n)
	}
	for id, c := range responses {
		if c != 1 {
			t.Fatalf("request %s answered %d times", id, c)
		}
	}
	return texts
}

// A thousand concurrent calls to one long-lived actor all reach its
// mailbox at once and are served in its order; each gets its own reply,
// none is lost or duplicated; the tree shows them in flight, then none.
func TestThousandCallsToOneLongLivedActor(t *testing.T) {
	full := make(chan []string, 1)
	var gate *actor.PID
	sup, srv := actorTree(t, []supervisor.Option{supervisor.WithLimits(supervisor.Limits{MaxConcurrency: concurrentCalls})}, func(sup *supervisor.Supervisor) {
		gate = spawn(t, sup, "gate", actor.PropsFromProducer(func() actor.Actor { return &gateActor{full: full} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "wait"}, supervisor.Named("gate").Tool()))

	sendCalls(t, srv, "wait", concurrentCalls)
	order := receive(t, full)

	// During: every call is in flight, under the application node, all
	// waiting for the gate, which holds them all.
	tree := sup.Tree()
	app := testkit.Find(tree, "application")
	if app == nil || app.Attrs["calls"] != strconv.Itoa(concurrentCalls) || app.Attrs["actors"] != "1" || app.Count("call") != concurrentCalls {
		t.Fatalf("application node during the calls: %+v (%d call nodes)", app.Attrs, app.Count("call"))
	}
	app.Walk(func(n *supervisor.Node) {
		if n.Kind == "call" && (n.Attrs["target"] != gate.Id || n.Attrs["state"] != "waiting" || n.Attrs["method"] != "tools/call") {
			t.Fatalf("call node %+v", n)
		}
	})
	if g := testkit.Find(app, "actor"); g == nil || g.ID != gate.Id || g.Attrs["held"] != strconv.Itoa(concurrentCalls) {
		t.Fatalf("the gate's node: %+v", g)
	}

	sup.ActorSystem().Root.Send(gate, &answerHeld{})
	texts := awaitCalls(t, srv, concurrentCalls)

	// Served in mailbox order: the calls reached the gate in the order
	// they were sent, and were answered in that order.
	for i := 1; i < len(order); i++ {
		if callNumber(t, order[i-1]) >= callNumber(t, order[i]) {
			t.Fatalf("the gate received call %s after %s: not in the order they were sent", order[i], order[i-1])
		}
	}
	place := map[string]bool{}
	for i, text := range texts {
		n, p, ok := strings.Cut(text, ":")
		if !ok || n != strconv.Itoa(i) || place[p] {
			t.Fatalf("response %d is %q: another call's reply, or a place served twice", i, text)
		}
		place[p] = true
	}

	// After: no call is left; the gate remains, having served them all.
	tree = testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("call") == 0 })
	app = testkit.Find(tree, "application")
	if app.Attrs["calls"] != "0" || app.Attrs["total"] != strconv.Itoa(concurrentCalls) {
		t.Fatalf("application node after: %+v", app.Attrs)
	}
	if g := testkit.Find(app, "actor"); g == nil || g.Attrs["served"] != strconv.Itoa(concurrentCalls) || g.Attrs["held"] != "0" {
		t.Fatalf("the gate after: %+v", g)
	}
}

// barrier releases the per-call actors once all of them hold their call.
type barrier struct {
	full    chan<- struct{}
	waiting []*actor.PID
}

type arrived struct{ pid *actor.PID }
type release struct{}

func (b *barrier) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *arrived:
		b.waiting = append(b.waiting, m.pid)
		if len(b.waiting) == concurrentCalls {
			b.full <- struct{}{}
		}
	case *release:
		for _, pid := range b.waiting {
			c.Send(pid, &release{})
		}
		b.waiting = nil
	}
}

// oneCall holds its call until the barrier releases it, then answers
// with its own id.
type oneCall struct {
	barrier *actor.PID
	call    *supervisor.ToolCall
}

func (a *oneCall) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		a.call = m
		c.Send(a.barrier, &arrived{pid: c.Self()})
	case *release:
		var args struct{ N int }
		_ = json.Unmarshal(a.call.Request.Arguments, &args)
		c.Send(a.call.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("%d:%s", args.N, c.Self().Id))})
	}
}

// A thousand concurrent calls to per-call actors: each call gets an
// actor of its own, all in flight at once under their calls' nodes, each
// reply its own; afterwards no call and no per-call actor is left.
func TestThousandCallsToPerCallActors(t *testing.T) {
	full := make(chan struct{}, 1)
	var b *actor.PID
	props := actor.PropsFromProducer(func() actor.Actor { return &oneCall{barrier: b} })
	sup, srv := actorTree(t, []supervisor.Option{supervisor.WithLimits(supervisor.Limits{MaxConcurrency: concurrentCalls})}, func(sup *supervisor.Supervisor) {
		b = spawn(t, sup, "barrier", actor.PropsFromProducer(func() actor.Actor { return &barrier{full: full} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "own"}, supervisor.PerCall(props).Tool()))

	sendCalls(t, srv, "own", concurrentCalls)
	receive(t, full)
	app := testkit.Find(sup.Tree(), "application")
	if app == nil || app.Count("call") != concurrentCalls || app.Count("actor") != concurrentCalls+1 {
		t.Fatalf("during: %d calls and %d actors", app.Count("call"), app.Count("actor"))
	}
	for _, n := range app.Children {
		if n.Kind == "call" && (len(n.Children) != 1 || n.Children[0].Kind != "actor" || n.Children[0].ID != n.ID+"/handler") {
			t.Fatalf("a call without its own actor: %+v", n)
		}
	}
	sup.ActorSystem().Root.Send(b, &release{})
	texts := awaitCalls(t, srv, concurrentCalls)
	actors := map[string]bool{}
	for i, text := range texts {
		n, id, ok := strings.Cut(text, ":")
		if !ok || n != strconv.Itoa(i) || actors[id] || !strings.HasSuffix(id, "/handler") {
			t.Fatalf("response %d is %q: another call's reply, or an actor serving twice", i, text)
		}
		actors[id] = true
	}
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("call") == 0 })
	if got := tree.Count("actor"); got != 1 {
		t.Fatalf("%d actors after the calls, want the barrier alone:\n%s", got, tree)
	}
}

// echoer answers every call at once.
type echoer struct{}

func (echoer) Receive(c actor.Context) {
	if _, ok := c.Message().(*supervisor.ToolCall); ok {
		c.Respond(&supervisor.ToolResult{Result: mcp.TextResult("ok")})
	}
}

// Closing the tree right after a burst of calls, while their call actors
// are still stopping, sends each such actor a second Stop; those dead
// letters are expected, every other one is a lifecycle bug. Each round
// closes the tree the moment the first answer arrives, with the other
// calls ending meanwhile: the window in which the application node may
// be stopped with ended calls still among its children. The window is
// narrow: without the application node's record of the stops it asked
// for, most runs of this test fail, not every one.
func TestClosingRightAfterCallsLeavesNoUnexpectedDeadLetter(t *testing.T) {
	const rounds, calls = 20, 64
	for round := range rounds {
		var sup *supervisor.Supervisor
		// The round's stdio server checks at its end, once Serve has
		// returned, that no unexpected dead letter was counted.
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			rt := quietRuntime(t, dispatch.WithTool(mcp.Tool{Name: "echo"}, supervisor.Named("echo").Tool()))
			var err error
			if sup, err = supervisor.New(rt); err != nil {
				t.Fatal(err)
			}
			spawn(t, sup, "echo", actor.PropsFromProducer(func() actor.Actor { return echoer{} }), nil)
			srv := testkit.StartStdioWith(t, sup, rt)
			for i := range calls {
				srv.Send(t, testkit.Request(i, "tools/call", map[string]any{"name": "echo"}))
			}
			srv.Client.AwaitResponse(t, "0")
			srv.Client.ExpectStop()
			srv.Cancel()
			ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
			defer cancel()
			if err := sup.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Fatalf("round %d: %d unexpected dead letters", round, n)
		}
	}
}
