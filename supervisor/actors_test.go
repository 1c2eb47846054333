package supervisor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// actorTree builds a Runtime from opts, a supervisor for it (closed when
// the test ends, with no unexpected dead letter), lets setup start the
// application's actors, and serves the Runtime over stdio in the tree.
func actorTree(t *testing.T, sopts []supervisor.Option, setup func(*supervisor.Supervisor), opts ...dispatch.Option) (*supervisor.Supervisor, *testkit.StdioServer) {
	t.Helper()
	rt := quietRuntime(t, opts...)
	sup, err := supervisor.New(rt, sopts...)
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
	if setup != nil {
		setup(sup)
	}
	return sup, testkit.StartStdioWith(t, sup, rt)
}

func spawn(t *testing.T, sup *supervisor.Supervisor, name string, props *actor.Props, restart actor.SupervisorStrategy) *actor.PID {
	t.Helper()
	pid, err := sup.Spawn(name, props, restart)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// toolText returns the text of a tools/call response's first content
// block, failing on an error response.
func toolText(t *testing.T, f *testkit.Frame) string {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("error response %d %s", f.Error.Code, f.Error.Message)
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(f.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", f.Result, err)
	}
	if r.IsError {
		return "isError: " + r.Content[0].Text
	}
	return r.Content[0].Text
}

func callTool(t *testing.T, srv *testkit.StdioServer, name string, args map[string]any) *testkit.Frame {
	t.Helper()
	return srv.Client.Call(t, "tools/call", map[string]any{"name": name, "arguments": args})
}

// roomActor is a long-lived actor: it counts the messages it was said
// and answers each call from its state.
type roomActor struct {
	said []string
}

func (a *roomActor) Describe() map[string]string {
	return map[string]string{"said": fmt.Sprint(len(a.said))}
}

func (a *roomActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		var args struct{ Text string }
		_ = json.Unmarshal(m.Request.Arguments, &args)
		switch args.Text {
		case "boom":
			panic("boom")
		case "leave":
			c.Stop(c.Self())
			return
		case "fail":
			c.Respond(&supervisor.CallError{Err: errors.New("the room refuses")})
			return
		case "rpc":
			c.Respond(&supervisor.CallError{Err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such room"}})
			return
		}
		a.said = append(a.said, args.Text)
		c.Respond(&supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("%d: %s", len(a.said), args.Text))})
	}
}

func restartAlways() actor.SupervisorStrategy {
	return actor.NewOneForOneStrategy(10, time.Minute, func(any) actor.Directive { return actor.RestartDirective })
}

// A long-lived actor answers from its state in mailbox order; an error
// reply is the handler's error (isError for a plain error, the JSON-RPC
// error itself for a *jsonrpc.Error); a panic ends that call with -32603
// and nothing else, and the actor, restarted by its strategy, serves the
// next call with fresh state.
func TestNamedActorReplyErrorAndPanic(t *testing.T) {
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "room", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), restartAlways())
	}, dispatch.WithTool(mcp.Tool{Name: "say"}, supervisor.Named("room").Tool()))

	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "hi"})); got != "1: hi" {
		t.Fatalf("first reply %q", got)
	}
	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "again"})); got != "2: again" {
		t.Fatalf("second reply %q (state lost?)", got)
	}
	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "fail"})); got != "isError: the room refuses" {
		t.Fatalf("error reply %q", got)
	}
	f := callTool(t, srv, "say", map[string]any{"text": "rpc"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInvalidParams || f.Error.Message != "no such room" {
		t.Fatalf("JSON-RPC error reply: %+v", f)
	}
	f = callTool(t, srv, "say", map[string]any{"text": "boom"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || f.Result != nil {
		t.Fatalf("a panic must end the call with -32603 and nothing else: %+v", f)
	}
	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "after"})); got != "1: after" {
		t.Fatalf("after the restart %q, want the fresh instance's first reply", got)
	}
}

// An actor that stops while handling a call ends it with -32603; a
// later call to the name it had finds no actor and is -32603 too.
func TestNamedActorDeath(t *testing.T) {
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "room", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "say"}, supervisor.Named("room").Tool()))

	f := callTool(t, srv, "say", map[string]any{"text": "leave"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || f.Result != nil {
		t.Fatalf("death mid-call: %+v", f)
	}
	f = callTool(t, srv, "say", map[string]any{"text": "hi"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a call to a stopped actor: %+v", f)
	}
}

// perCallActor serves exactly one call; it may stop without replying.
type perCallActor struct {
	mu   *sync.Mutex
	seen *[]string
}

func (a *perCallActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		var args struct{ Text string }
		_ = json.Unmarshal(m.Request.Arguments, &args)
		a.mu.Lock()
		*a.seen = append(*a.seen, c.Self().Id)
		a.mu.Unlock()
		switch args.Text {
		case "boom":
			panic("boom")
		case "leave":
			c.Stop(c.Self())
			return
		}
		c.Respond(&supervisor.ToolResult{Result: mcp.TextResult(args.Text + " from " + c.Self().Id)})
	}
}

// Each call gets an actor of its own, under the call's node; a panic or
// a stop without a reply is -32603; nothing stays behind.
func TestPerCallActors(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	props := actor.PropsFromProducer(func() actor.Actor { return &perCallActor{mu: &mu, seen: &seen} })
	sup, srv := actorTree(t, nil, nil, dispatch.WithTool(mcp.Tool{Name: "once"}, supervisor.PerCall(props).Tool()))

	a := toolText(t, callTool(t, srv, "once", map[string]any{"text": "a"}))
	b := toolText(t, callTool(t, srv, "once", map[string]any{"text": "b"}))
	if !strings.HasPrefix(a, "a from snodo/app/call$") || !strings.HasSuffix(a, "/handler") || !strings.HasPrefix(b, "b from ") || a[len("a from "):] == b[len("b from "):] {
		t.Fatalf("replies %q and %q: want one actor per call, under its call", a, b)
	}
	for _, text := range []string{"boom", "leave"} {
		f := callTool(t, srv, "once", map[string]any{"text": text})
		if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || f.Result != nil {
			t.Fatalf("%s: %+v", text, f)
		}
	}
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("call") == 0 && n.Count("actor") == 0
	})
	if app := testkit.Find(tree, "application"); app == nil || app.Attrs["total"] != "4" || app.Attrs["calls"] != "0" {
		t.Fatalf("application node after four calls: %+v", app)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 4 {
		t.Fatalf("per-call actors saw %d calls, want 4: %v", len(seen), seen)
	}
}

// hostSystem is an application's own actor system, configured as the
// application must: its logs on the application's handler, and dead
// letters throttled briefly (protoactor's throttle goroutine lives that
// long after a dead letter).
func hostSystem() *actor.ActorSystem {
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }),
		actor.WithDeadLetterThrottleInterval(time.Millisecond),
	)
}

// A target the application started itself is reached by its PID; when it
// stops, the call waiting for it ends with -32603, and so does a call to
// the PID it had.
func TestPIDTarget(t *testing.T) {
	host := hostSystem()
	pid := host.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }))
	_, srv := actorTree(t, []supervisor.Option{supervisor.WithActorSystem(host, nil)}, nil,
		dispatch.WithTool(mcp.Tool{Name: "say"}, supervisor.PID(pid).Tool()))
	if got := toolText(t, callTool(t, srv, "say", map[string]any{"text": "hi"})); got != "1: hi" {
		t.Fatalf("reply %q", got)
	}
	f := callTool(t, srv, "say", map[string]any{"text": "leave"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("the PID target stopped mid-call: %+v", f)
	}
	f = callTool(t, srv, "say", map[string]any{"text": "hi"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a call to a PID that no longer exists: %+v", f)
	}
}

// holdActor holds every call until it is told to answer, and reports
// what it sees. When a call is cancelled it answers it at once anyway:
// that reply comes too late and must never be written.
type holdActor struct {
	seen chan<- string
	held []*actor.PID
}

type answerHeld struct{}

func (a *holdActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		a.held = append(a.held, m.ReplyTo)
		a.seen <- "call"
	case *supervisor.Cancelled:
		c.Send(m.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult("too late")})
		a.seen <- "cancelled: " + m.Reason.Error()
	case *answerHeld:
		for _, to := range a.held {
			c.Send(to, &supervisor.ToolResult{Result: mcp.TextResult("answered")})
		}
		a.held = nil
	}
}

func expect(t *testing.T, seen <-chan string, want string) {
	t.Helper()
	select {
	case got := <-seen:
		if got != want {
			t.Fatalf("the actor saw %q, want %q", got, want)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatalf("the actor never saw %q", want)
	}
}

// A client's cancellation reaches a long-lived actor as a message after
// the call's own; the reply it sends afterwards is dropped, never
// written, and the call's node is gone.
func TestCancelledCallReachesTheActorAndALateReplyIsDropped(t *testing.T) {
	seen := make(chan string, 16)
	var hold *actor.PID
	sup, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		hold = spawn(t, sup, "hold", actor.PropsFromProducer(func() actor.Actor { return &holdActor{seen: seen} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "hold"}, supervisor.Named("hold").Tool()))

	srv.Send(t, testkit.Request(7, "tools/call", map[string]any{"name": "hold"}))
	expect(t, seen, "call")
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("call") == 1 })
	call := testkit.Find(tree, "call")
	if call.Attrs["method"] != "tools/call" || call.Attrs["name"] != "hold" || call.Attrs["id"] != "7" || call.Attrs["target"] != hold.Id || call.Attrs["state"] != "waiting" {
		t.Fatalf("the call's node: %+v", call)
	}
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 7}))
	expect(t, seen, "cancelled: context canceled")
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("call") == 0 })

	// The connection is still served; nothing was written for id 7.
	srv.Send(t, testkit.Request(8, "tools/call", map[string]any{"name": "hold"}))
	expect(t, seen, "call")
	sup.ActorSystem().Root.Send(hold, &answerHeld{})
	if got := toolText(t, srv.Client.AwaitResponse(t, "8")); got != "answered" {
		t.Fatalf("reply %q", got)
	}
	for _, f := range srv.Client.Frames() {
		if string(f.ID) == "7" {
			t.Fatalf("a frame was written for the cancelled call: %+v", f)
		}
	}
}

// A per-call actor hears of the cancellation before it is stopped.
func TestCancelledPerCallActor(t *testing.T) {
	seen := make(chan string, 16)
	props := actor.PropsFromProducer(func() actor.Actor { return &holdActor{seen: seen} })
	sup, srv := actorTree(t, nil, nil, dispatch.WithTool(mcp.Tool{Name: "hold"}, supervisor.PerCall(props).Tool()))
	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	expect(t, seen, "call")
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		c := testkit.Find(n, "call")
		return c != nil && c.Count("actor") == 1
	})
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}))
	expect(t, seen, "cancelled: context canceled")
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("call") == 0 && n.Count("actor") == 0
	})
	if got := srv.Client.Frames(); len(got) != 0 {
		t.Fatalf("frames written for a cancelled call: %+v", got)
	}
}

// A call past its deadline is answered -32603 by the executor; the actor
// hears of it with the deadline as the reason.
func TestCallDeadlineReachesTheActor(t *testing.T) {
	seen := make(chan string, 16)
	_, srv := actorTree(t, []supervisor.Option{supervisor.WithLimits(supervisor.Limits{RequestTimeout: 200 * time.Millisecond})}, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "hold", actor.PropsFromProducer(func() actor.Actor { return &holdActor{seen: seen} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "hold"}, supervisor.Named("hold").Tool()))
	f := callTool(t, srv, "hold", nil)
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(f.Error.Message, "timed out") {
		t.Fatalf("deadline: %+v", f)
	}
	expect(t, seen, "call")
	expect(t, seen, "cancelled: context deadline exceeded")
}

// The client going away (the connection stopping) cancels the call at
// the actor.
func TestDisconnectReachesTheActor(t *testing.T) {
	seen := make(chan string, 16)
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "hold", actor.PropsFromProducer(func() actor.Actor { return &holdActor{seen: seen} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "hold"}, supervisor.Named("hold").Tool()))
	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	expect(t, seen, "call")
	srv.Client.ExpectStop()
	srv.Cancel()
	expect(t, seen, "cancelled: context canceled")
}

// reporter reports progress and logs to the client, then answers; it
// keeps the call's handle, so the test can ask it (probeCall) to use the
// handle again once the client has the reply.
type reporter struct{ last *supervisor.ToolCall }

// probeCall asks the reporter to report progress on its last call, and
// to tell the error on the channel.
type probeCall struct{ err chan error }

func (r *reporter) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		r.last = m
		if err := m.Progress(mcp.Progress{Progress: 1, Total: 2, Message: "half"}); err != nil {
			c.Respond(&supervisor.CallError{Err: err})
			return
		}
		m.Logger().Info("working", "step", 1)
		m.Logger().Debug("below the level the request asked for")
		c.Respond(&supervisor.ToolResult{Result: mcp.TextResult("done")})
	case *probeCall:
		m.err <- r.last.Progress(mcp.Progress{Progress: 2})
	}
}

// An actor's progress reports and log records reach the client before
// the reply, in order; once the client has the reply, the handle
// refuses more. (The reply itself travels through the call actor's
// mailbox, so a report queued right after Respond may still precede it.)
func TestActorProgressAndLogPrecedeTheReply(t *testing.T) {
	var pid *actor.PID
	sup, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		pid = spawn(t, sup, "reporter", actor.PropsFromProducer(func() actor.Actor { return &reporter{} }), nil)
	}, dispatch.WithClientLogging(), dispatch.WithTool(mcp.Tool{Name: "work"}, supervisor.Named("reporter").Tool()))
	f := srv.Client.Call(t, "tools/call", map[string]any{"name": "work", "_meta": map[string]any{
		"progressToken": "p1", "io.modelcontextprotocol/logLevel": "info",
	}})
	if got := toolText(t, f); got != "done" {
		t.Fatalf("reply %q", got)
	}
	var methods []string
	for _, fr := range srv.Client.Frames() {
		if fr.Method != "" {
			methods = append(methods, fr.Method)
		} else {
			methods = append(methods, "response")
		}
	}
	if strings.Join(methods, ",") != "notifications/progress,notifications/message,response" {
		t.Fatalf("frames in order %v", methods)
	}
	probe := &probeCall{err: make(chan error, 1)}
	sup.ActorSystem().Root.Send(pid, probe)
	select {
	case err := <-probe.err:
		if !errors.Is(err, supervisor.ErrCallEnded) {
			t.Fatalf("progress after the reply: %v, want ErrCallEnded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reporter did not answer the probe")
	}
}

// asker asks the client for input, then answers with what it got.
type asker struct{}

func (asker) Receive(c actor.Context) {
	m, ok := c.Message().(*supervisor.ToolCall)
	if !ok {
		return
	}
	if r, ok := m.Request.Input.Elicitation("name"); ok {
		c.Respond(&supervisor.ToolResult{Result: mcp.TextResult("hello " + fmt.Sprint(r.Content["name"]))})
		return
	}
	c.Respond(&supervisor.CallError{Err: &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
		"name": mcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
	}}})
}

// An actor asks for input as a function handler does (multi round-trip
// requests): its CallError carries the InputRequired, and the client's
// retry arrives as a new call with the answers.
func TestActorAsksForInput(t *testing.T) {
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "asker", actor.PropsFromProducer(func() actor.Actor { return asker{} }), nil)
	}, dispatch.WithTool(mcp.Tool{Name: "greet"}, supervisor.Named("asker").Tool()))
	caps := map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}
	f := srv.Client.Call(t, "tools/call", map[string]any{"name": "greet", "_meta": caps})
	var r struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil || r.ResultType != "input_required" || r.InputRequests["name"] == nil {
		t.Fatalf("first round: %+v %s", f.Error, f.Result)
	}
	f = srv.Client.Call(t, "tools/call", map[string]any{"name": "greet", "_meta": caps,
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	if got := toolText(t, f); got != "hello Ada" {
		t.Fatalf("second round %q", got)
	}
}

// library serves a resource template and a prompt.
type library struct{}

func (library) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		c.Respond(&supervisor.ResourceResult{})
	case *supervisor.ResourceRead:
		if m.Request.Vars.Get("name") == "missing" {
			c.Respond(&supervisor.CallError{Err: dispatch.ErrResourceNotFound})
			return
		}
		c.Respond(&supervisor.ResourceResult{Result: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			mcp.TextContents(m.Request.URI, "text/plain", "book "+m.Request.Vars.Get("name")),
		}}})
	case *supervisor.PromptGet:
		c.Respond(&supervisor.PromptResult{Result: &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.Text("read " + m.Request.Arguments["title"])},
		}}})
	}
}

// Resources (a template here) and prompts are served by actors the same
// way; a reply of the wrong kind is -32603.
func TestActorResourceAndPrompt(t *testing.T) {
	lib := supervisor.Named("library")
	_, srv := actorTree(t, nil, func(sup *supervisor.Supervisor) {
		spawn(t, sup, "library", actor.PropsFromProducer(func() actor.Actor { return library{} }), nil)
	},
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "book:///{name}", Name: "book"}, lib.Resource()),
		dispatch.WithPrompt(mcp.Prompt{Name: "read", Arguments: []mcp.PromptArgument{{Name: "title"}}}, lib.Prompt()),
		dispatch.WithTool(mcp.Tool{Name: "confused"}, lib.Tool()))
	f := srv.Client.Call(t, "resources/read", map[string]any{"uri": "book:///dune"})
	if f.Error != nil || !strings.Contains(string(f.Result), `"text":"book dune"`) {
		t.Fatalf("read: %+v %s", f.Error, f.Result)
	}
	f = srv.Client.Call(t, "resources/read", map[string]any{"uri": "book:///missing"})
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("a missing resource: %+v", f)
	}
	f = srv.Client.Call(t, "prompts/get", map[string]any{"name": "read", "arguments": map[string]any{"title": "Dune"}})
	if f.Error != nil || !strings.Contains(string(f.Result), `"text":"read Dune"`) {
		t.Fatalf("prompt: %+v %s", f.Error, f.Result)
	}
	f = callTool(t, srv, "confused", nil)
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a resource result to a tool call: %+v", f)
	}
}
