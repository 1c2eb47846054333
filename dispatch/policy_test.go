package dispatch_test

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

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// policyEvents records policy events and signals each one.
type policyEvents struct {
	instrumentation.Nop
	mu     sync.Mutex
	events []instrumentation.PolicyEvent
	ch     chan instrumentation.PolicyEvent
}

func newPolicyEvents() *policyEvents {
	return &policyEvents{ch: make(chan instrumentation.PolicyEvent, 100000)}
}

func (p *policyEvents) Policy(e instrumentation.PolicyEvent) {
	p.mu.Lock()
	p.events = append(p.events, e)
	p.mu.Unlock()
	p.ch <- e
}

// next waits for the next event of kind k, skipping others.
func (p *policyEvents) next(t *testing.T, k instrumentation.PolicyEventKind) instrumentation.PolicyEvent {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-p.ch:
			if e.Kind == k {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event in 10 s", k)
		}
	}
}

// toolRequest is a 2026-07-28 tools/call of name with principal.
func toolRequest(t testing.TB, id int, name string, principal any) *dispatch.Request {
	t.Helper()
	raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, name)
	req := decodeRequest(t, []byte(raw))
	req.Principal = principal
	return req
}

// frameError decodes an outcome's error, or nil for a result.
func frameError(t testing.TB, out dispatch.Outcome) *jsonrpc.Error {
	t.Helper()
	var f struct {
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Frame, &f); err != nil {
		t.Fatalf("frame %s: %v", out.Frame, err)
	}
	if f.Error == nil {
		return nil
	}
	var data map[string]any
	_ = json.Unmarshal(f.Error.Data, &data)
	return &jsonrpc.Error{Code: f.Error.Code, Message: f.Error.Message, Data: data}
}

// gate is a tool handler that reports each start and waits to be let go.
type gate struct {
	started chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}, 100), release: make(chan struct{})} }

func (g *gate) handler(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("done")}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func recvStart(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not start in 10 s")
	}
}

func useOf(t *testing.T, rt *dispatch.Runtime, name string) dispatch.PolicyUse {
	t.Helper()
	for _, u := range rt.Policies() {
		if u.Name == name {
			return u
		}
	}
	t.Fatalf("no policy use for %s in %+v", name, rt.Policies())
	return dispatch.PolicyUse{}
}

// The N+1th concurrent call waits; once every waiting place is taken too,
// the next is refused with CodeBusy saying what was exceeded.
func TestConcurrencyLimitWaitsThenRefuses(t *testing.T) {
	g := newGate()
	sink := newPolicyEvents()
	rt := mustNew(t, dispatch.WithInstrumentation(sink),
		dispatch.WithTool(mcp.Tool{Name: "search"}, g.handler,
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 2, MaxWaiting: 1})))
	ctx := context.Background()
	outs := make(chan dispatch.Outcome, 3)
	for i := range 2 {
		go func() { outs <- rt.Dispatch(ctx, toolRequest(t, i+1, "search", nil)) }()
		recvStart(t, g.started)
	}
	go func() { outs <- rt.Dispatch(ctx, toolRequest(t, 3, "search", nil)) }()
	w := sink.next(t, instrumentation.PolicyWaiting)
	if w.Component != "search" || w.Method != "tools/call" || w.Running != 2 || w.Waiting != 1 {
		t.Fatalf("waiting event %+v", w)
	}
	select {
	case <-g.started:
		t.Fatal("a third call started while two held every place")
	default:
	}
	if u := useOf(t, rt, "search"); u.Running != 2 || u.Waiting != 1 || u.MaxConcurrent != 2 || u.MaxWaiting != 1 {
		t.Fatalf("use with 2 running and 1 waiting: %+v", u)
	}
	t.Cleanup(func() {
		select {
		case <-g.release:
		default:
			close(g.release)
		}
	})
	fourth := make(chan dispatch.Outcome, 1)
	go func() { fourth <- rt.Dispatch(ctx, toolRequest(t, 4, "search", nil)) }()
	var refused dispatch.Outcome
	select {
	case refused = <-fourth:
	case <-time.After(10 * time.Second):
		t.Fatal("the call beyond every waiting place waited instead of being refused")
	}
	e := frameError(t, refused)
	if e == nil || e.Code != dispatch.CodeBusy {
		t.Fatalf("fourth call: %s, want %d", refused.Frame, dispatch.CodeBusy)
	}
	data := e.Data.(map[string]any)
	if data["limit"] != "concurrency" || data["maxConcurrent"] != 2.0 || data["maxWaiting"] != 1.0 || data["retryAfterMs"].(float64) < 1000 {
		t.Fatalf("refusal data %v", data)
	}
	if !strings.Contains(e.Message, "tool search") || !strings.Contains(e.Message, "retry after") {
		t.Fatalf("refusal message %q", e.Message)
	}
	if refused.RetryAfter < time.Second {
		t.Fatalf("Outcome.RetryAfter = %v, want at least 1 s", refused.RetryAfter)
	}
	r := sink.next(t, instrumentation.PolicyRefused)
	if r.Reason != "queue_full" || r.Policy != "concurrency" {
		t.Fatalf("refusal event %+v", r)
	}
	close(g.release)
	for range 3 {
		if e := frameError(t, <-outs); e != nil {
			t.Fatalf("an admitted call failed: %v", e)
		}
	}
	recvStart(t, g.started) // the third did run
	if u := useOf(t, rt, "search"); u.Running != 0 || u.Waiting != 0 || u.Admitted != 3 || u.Waited != 1 || u.Refused != 1 {
		t.Fatalf("use at the end: %+v", u)
	}
}

// A waiting call whose context ends leaves the queue at once; the place
// it would have had goes to the next caller.
func TestConcurrencyLimitCancelledWhileWaiting(t *testing.T) {
	g := newGate()
	sink := newPolicyEvents()
	rt := mustNew(t, dispatch.WithInstrumentation(sink),
		dispatch.WithTool(mcp.Tool{Name: "slow"}, g.handler,
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: 1})))
	first := make(chan dispatch.Outcome, 1)
	go func() { first <- rt.Dispatch(context.Background(), toolRequest(t, 1, "slow", nil)) }()
	recvStart(t, g.started)
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan dispatch.Outcome, 1)
	go func() { waiting <- rt.Dispatch(ctx, toolRequest(t, 2, "slow", nil)) }()
	sink.next(t, instrumentation.PolicyWaiting)
	cancel()
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled waiting call did not return")
	}
	c := sink.next(t, instrumentation.PolicyCancelled)
	if c.Waiting != 0 {
		t.Fatalf("cancelled event %+v: the waiter is still counted", c)
	}
	if u := useOf(t, rt, "slow"); u.Waiting != 0 || u.Running != 1 {
		t.Fatalf("use after the cancel: %+v", u)
	}
	// The waiting place is free again: another call waits (not refused)
	// and runs once the first ends.
	third := make(chan dispatch.Outcome, 1)
	go func() { third <- rt.Dispatch(context.Background(), toolRequest(t, 3, "slow", nil)) }()
	sink.next(t, instrumentation.PolicyWaiting)
	close(g.release)
	for _, ch := range []chan dispatch.Outcome{first, third} {
		if e := frameError(t, <-ch); e != nil {
			t.Fatalf("call failed: %v", e)
		}
	}
	if u := useOf(t, rt, "slow"); u.Running != 0 || u.Waiting != 0 {
		t.Fatalf("use at the end: %+v", u)
	}
}

// idPrincipal is a principal naming its party.
type idPrincipal struct{ id string }

func (p *idPrincipal) PrincipalID() string { return p.id }

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func passTool(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
}

// Each principal has its own bucket; an empty one is refused with
// CodeRateLimited and the time until its next token.
func TestRateLimitPerPrincipal(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "costly"}, passTool,
		dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(2 * time.Second), Burst: 2}),
		dispatch.WithPolicyClock(clock.Now)))
	ctx := context.Background()
	alice := func() *idPrincipal { return &idPrincipal{"alice"} } // a new value per token
	bob := &idPrincipal{"bob"}
	for i := range 2 {
		if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, i, "costly", alice()))); e != nil {
			t.Fatalf("alice's call %d within the burst: %v", i, e)
		}
	}
	out := rt.Dispatch(ctx, toolRequest(t, 3, "costly", alice()))
	e := frameError(t, out)
	if e == nil || e.Code != dispatch.CodeRateLimited {
		t.Fatalf("alice's third call: %s", out.Frame)
	}
	data := e.Data.(map[string]any)
	if data["limit"] != "rate" || data["retryAfterMs"] != 2000.0 || data["burst"] != 2.0 || data["rate"] != 0.5 {
		t.Fatalf("refusal data %v", data)
	}
	if out.RetryAfter != 2*time.Second {
		t.Fatalf("RetryAfter = %v, want 2 s", out.RetryAfter)
	}
	if !strings.Contains(e.Message, "Rate limit exceeded for tool costly") {
		t.Fatalf("message %q", e.Message)
	}
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 4, "costly", bob))); e != nil {
		t.Fatalf("bob's first call was refused: %v", e)
	}
	clock.Advance(1999 * time.Millisecond)
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 5, "costly", alice()))); e == nil || e.Code != dispatch.CodeRateLimited {
		t.Fatal("alice's call before her next token was admitted")
	}
	clock.Advance(time.Millisecond)
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 6, "costly", alice()))); e != nil {
		t.Fatalf("alice's call once her token was there: %v", e)
	}
}

// The rate limiter holds at most MaxKeys buckets; a bucket full again is
// forgotten, and a new key finding every bucket busy is refused until
// the oldest can be.
func TestRateLimitKeysAreBoundedAndExpire(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "t"}, passTool,
		dispatch.WithRateLimit(dispatch.RateLimit{Rate: 1, Burst: 3, MaxKeys: 3,
			Key: func(_ context.Context, info *dispatch.RequestInfo) any { return info.Principal }}),
		dispatch.WithPolicyClock(clock.Now)))
	ctx := context.Background()
	for i, p := range []string{"a", "b", "c"} {
		if i > 0 {
			clock.Advance(time.Second)
		}
		if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, i, "t", p))); e != nil {
			t.Fatalf("key %s: %v", p, e)
		}
	}
	if u := useOf(t, rt, "t"); u.Keys != 3 || u.MaxKeys != 3 {
		t.Fatalf("use with 3 keys: %+v", u)
	}
	// a was last used 2 s ago; its bucket (burst 3, 1/s) is full again
	// only at 3 s, so it is still held.
	out := rt.Dispatch(ctx, toolRequest(t, 9, "t", "d"))
	e := frameError(t, out)
	if e == nil || e.Code != dispatch.CodeRateLimited || !strings.Contains(e.Message, "Rate limiter full") {
		t.Fatalf("a fourth key with none idle: %s", out.Frame)
	}
	if out.RetryAfter != time.Second {
		t.Fatalf("RetryAfter for a full limiter = %v, want 1 s (until a is idle)", out.RetryAfter)
	}
	clock.Advance(time.Second)
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 10, "t", "d"))); e != nil {
		t.Fatalf("a fourth key once a was idle: %v", e)
	}
	if u := useOf(t, rt, "t"); u.Keys != 3 {
		t.Fatalf("keys after a was forgotten: %+v", u)
	}
	clock.Advance(time.Hour)
	if u := useOf(t, rt, "t"); u.Keys != 0 {
		t.Fatalf("keys after an idle hour: %d, want 0", u.Keys)
	}
}

// A handler running past its component's timeout has its context
// cancelled with ErrCallTimeout, and the call is CodeCallTimedOut.
func TestCallTimeout(t *testing.T) {
	causes := make(chan error, 1)
	sink := newPolicyEvents()
	rt := mustNew(t, dispatch.WithInstrumentation(sink),
		dispatch.WithTool(mcp.Tool{Name: "shell"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return nil, ctx.Err()
		}, dispatch.WithCallTimeout(5*time.Millisecond)),
		dispatch.WithTool(mcp.Tool{Name: "quick"}, passTool, dispatch.WithCallTimeout(time.Hour)))
	out := rt.Dispatch(context.Background(), toolRequest(t, 1, "shell", nil))
	e := frameError(t, out)
	if e == nil || e.Code != dispatch.CodeCallTimedOut {
		t.Fatalf("a call past its timeout: %s", out.Frame)
	}
	if data := e.Data.(map[string]any); data["limit"] != "timeout" || data["timeoutMs"] != 5.0 {
		t.Fatalf("data %v", data)
	}
	if out.RetryAfter != 0 {
		t.Fatalf("a timeout says retry after %v", out.RetryAfter)
	}
	if c := <-causes; !errors.Is(c, dispatch.ErrCallTimeout) {
		t.Fatalf("the handler's context cause: %v", c)
	}
	sink.next(t, instrumentation.PolicyTimedOut)
	if e := frameError(t, rt.Dispatch(context.Background(), toolRequest(t, 2, "quick", nil))); e != nil {
		t.Fatalf("a call within its timeout: %v", e)
	}
}

// Middleware wraps in a stated order: the server's outside the
// component's, both outside the built-in policies, so a refused call is
// seen by both and reaches no handler.
func TestMiddlewareOrder(t *testing.T) {
	var mu sync.Mutex
	var trail []string
	note := func(s string) { mu.Lock(); trail = append(trail, s); mu.Unlock() }
	mw := func(name string) dispatch.Middleware {
		return func(next dispatch.InvocationHandler) dispatch.InvocationHandler {
			return func(ctx context.Context, inv *dispatch.Invocation) (any, error) {
				note(name + ">" + inv.Name)
				res, err := next(ctx, inv)
				var je *jsonrpc.Error
				if errors.As(err, &je) {
					note(fmt.Sprintf("%s<%d", name, je.Code))
				} else {
					note(name + "<")
				}
				return res, err
			}
		}
	}
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	rt := mustNew(t,
		dispatch.WithComponentPolicies(dispatch.WithMiddleware(mw("server1")), dispatch.WithMiddleware(mw("server2"))),
		dispatch.WithTool(mcp.Tool{Name: "t"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			note("handler")
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
		}, dispatch.WithMiddleware(mw("own")),
			dispatch.WithRateLimit(dispatch.RateLimit{Rate: 1, Burst: 1}), dispatch.WithPolicyClock(clock.Now)))
	ctx := context.Background()
	_ = rt.Dispatch(ctx, toolRequest(t, 1, "t", nil))
	_ = rt.Dispatch(ctx, toolRequest(t, 2, "t", nil)) // refused by the rate limit
	want := []string{"server1>t", "server2>t", "own>t", "handler", "own<", "server2<", "server1<",
		"server1>t", "server2>t", "own>t", "own<-31429", "server2<-31429", "server1<-31429"}
	if fmt.Sprint(trail) != fmt.Sprint(want) {
		t.Fatalf("trail\n got %v\nwant %v", trail, want)
	}
}

// Middleware may rewrite a call's request and answer without the
// handler (a cache); a result of the wrong type is -32603.
func TestMiddlewareRewritesAndAnswers(t *testing.T) {
	cache := func(next dispatch.InvocationHandler) dispatch.InvocationHandler {
		return func(ctx context.Context, inv *dispatch.Invocation) (any, error) {
			req := inv.Request.(*dispatch.CallToolRequest)
			switch string(req.Arguments) {
			case `{"q":"cached"}`:
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("from cache")}}, nil
			case `{"q":"bad"}`:
				return "not a result", nil
			}
			req.Arguments = json.RawMessage(`{"q":"rewritten"}`)
			return next(ctx, inv)
		}
	}
	rt := mustNew(t, dispatch.WithLogger(slog.New(slog.DiscardHandler)), dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(string(req.Arguments))}}, nil
	}, dispatch.WithMiddleware(cache)))
	for args, want := range map[string]string{`{"q":"cached"}`: "from cache", `{"q":"x"}`: `{"q":"rewritten"}`} {
		f := call(t, rt, "tools/call", map[string]any{"name": "echo", "arguments": json.RawMessage(args)})
		if text, _ := toolText(t, f); text != want {
			t.Fatalf("%s: %q, want %q", args, text, want)
		}
	}
	f := call(t, rt, "tools/call", map[string]any{"name": "echo", "arguments": json.RawMessage(`{"q":"bad"}`)})
	rpcError(t, f, jsonrpc.CodeInternalError)
}

// Invalid policies fail New, naming the component and the option.
func TestPolicyOptionsAreChecked(t *testing.T) {
	for _, c := range []struct {
		opt  dispatch.Option
		want string
	}{
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{MaxWaiting: 2})), `tool "t": WithConcurrencyLimit: a concurrency limit needs Max at least 1`},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithRateLimit(dispatch.RateLimit{Burst: 2})), "WithRateLimit: a rate limit needs a positive, finite Rate"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Inf})), "WithRateLimit: a rate limit needs a positive, finite Rate"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithCallTimeout(-time.Second)), "WithCallTimeout: the timeout must not be negative"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithMiddleware(nil)), "WithMiddleware: nil middleware"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithCompletion("x", func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) { return nil, nil })), "WithCompletion applies to prompts and resource templates only"},
		{dispatch.WithComponentPolicies(dispatch.WithCallTimeout(-time.Second)), "WithComponentPolicies: WithCallTimeout"},
		{dispatch.WithComponentPolicies(nil), "WithComponentPolicies: nil option"},
	} {
		_, err := dispatch.New(testInfo, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v, want an error containing %q", err, c.want)
		}
	}
}

// Policies apply to prompts, resources and templates as to tools, and a
// component's own limit replaces the server's.
func TestPoliciesOnEveryKind(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	text := func(ctx context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, Text: "x"}}}, nil
	}
	rt := mustNew(t,
		dispatch.WithComponentPolicies(dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 1}), dispatch.WithPolicyClock(clock.Now)),
		dispatch.WithPrompt(mcp.Prompt{Name: "p"}, func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Text("hi")}}}, nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "file:///a", Name: "a"}, text),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t"}, text),
		dispatch.WithTool(mcp.Tool{Name: "own"}, passTool, dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 2})))
	for _, c := range []struct {
		method string
		params map[string]any
		second map[string]any // a second call on the same component
		allow  int
	}{
		{"prompts/get", map[string]any{"name": "p"}, map[string]any{"name": "p"}, 1},
		{"resources/read", map[string]any{"uri": "file:///a"}, map[string]any{"uri": "file:///a"}, 1},
		{"resources/read", map[string]any{"uri": "file:///t/1"}, map[string]any{"uri": "file:///t/2"}, 1}, // one template, one bucket
		{"tools/call", map[string]any{"name": "own"}, map[string]any{"name": "own"}, 2},
	} {
		resultOf(t, call(t, rt, c.method, c.params))
		for i := 1; i < c.allow; i++ {
			resultOf(t, call(t, rt, c.method, c.second))
		}
		rpcError(t, call(t, rt, c.method, c.second), dispatch.CodeRateLimited)
	}
	if n := len(rt.Policies()); n != 4 {
		t.Fatalf("%d limited components, want 4: %+v", n, rt.Policies())
	}
}

// A call the concurrency limit refuses gives its rate limit token back:
// it did not run.
func TestBusyRefusalRefundsTheRateToken(t *testing.T) {
	g := newGate()
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "t"}, g.handler,
		dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 1}),
		dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: -1}),
		dispatch.WithPolicyClock(clock.Now)))
	ctx := context.Background()
	first := make(chan dispatch.Outcome, 1)
	go func() { first <- rt.Dispatch(ctx, toolRequest(t, 1, "t", "alice")) }()
	recvStart(t, g.started)
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 2, "t", "bob"))); e == nil || e.Code != dispatch.CodeBusy {
		t.Fatalf("bob's call while alice's holds the place: %v", e)
	}
	close(g.release)
	if e := frameError(t, <-first); e != nil {
		t.Fatalf("alice's call: %v", e)
	}
	if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, 3, "t", "bob"))); e != nil {
		t.Fatalf("bob's call after his refused one: %v (its token was spent)", e)
	}
}
