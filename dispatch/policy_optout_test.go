package dispatch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// A component opts out of each server default it must not have: the
// tool without the timeout runs with no deadline, the one without the
// rate limit is never refused, and the one without the concurrency limit
// runs beside a call in flight, while a tool keeping the defaults has
// them all.
func TestComponentOptsOutOfServerDefaults(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	deadline := func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := ctx.Deadline(); ok {
			return mcp.TextResult("deadline"), nil
		}
		return mcp.TextResult("none"), nil
	}
	g := newGate()
	rt := mustNew(t,
		dispatch.WithComponentPolicies(dispatch.WithCallTimeout(time.Hour),
			dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 1}),
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: -1}),
			dispatch.WithPolicyClock(clock.Now)),
		dispatch.WithTool(mcp.Tool{Name: "plain"}, deadline),
		dispatch.WithTool(mcp.Tool{Name: "stream"}, deadline, dispatch.WithCallTimeout(0)),
		dispatch.WithTool(mcp.Tool{Name: "health"}, passTool, dispatch.WithRateLimit(dispatch.RateLimit{})),
		dispatch.WithTool(mcp.Tool{Name: "wide"}, g.handler, dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{})))
	ctx := context.Background()
	if got, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "plain"})); got != "deadline" {
		t.Fatalf("the tool under the defaults: %q", got)
	}
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "plain"}), dispatch.CodeRateLimited)
	if got, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "stream"})); got != "none" {
		t.Fatalf("the tool without the timeout: %q", got)
	}
	for i := range 3 {
		if e := frameError(t, rt.Dispatch(ctx, toolRequest(t, i, "health", nil))); e != nil {
			t.Fatalf("call %d of the tool without the rate limit: %v", i, e)
		}
	}
	// "wide" keeps the server's rate limit: two principals, two tokens.
	first := make(chan dispatch.Outcome, 1)
	go func() { first <- rt.Dispatch(ctx, toolRequest(t, 10, "wide", "alice")) }()
	recvStart(t, g.started)
	second := make(chan dispatch.Outcome, 1)
	go func() { second <- rt.Dispatch(ctx, toolRequest(t, 11, "wide", "bob")) }()
	recvStart(t, g.started)
	close(g.release)
	for _, ch := range []chan dispatch.Outcome{first, second} {
		if e := frameError(t, <-ch); e != nil {
			t.Fatalf("a call of the tool without the concurrency limit: %v", e)
		}
	}
	if u := useOf(t, rt, "stream"); u.Timeout != 0 || u.Rate == 0 || u.MaxConcurrent != 1 {
		t.Fatalf("the policies of the tool without the timeout: %+v", u)
	}
	if u := useOf(t, rt, "wide"); u.MaxConcurrent != 0 || u.Timeout != time.Hour {
		t.Fatalf("the policies of the tool without the concurrency limit: %+v", u)
	}
}

// An opt-out is for one component, and cannot be given with a limit of
// its kind.
func TestOptOutsAreChecked(t *testing.T) {
	for _, c := range []struct {
		opt  dispatch.Option
		want string
	}{
		{dispatch.WithComponentPolicies(dispatch.WithRateLimit(dispatch.RateLimit{})), "applies to one component, not to the server"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithCallTimeout(time.Second), dispatch.WithCallTimeout(0)), "WithCallTimeout: a component cannot both"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithCallTimeout(0), dispatch.WithCallTimeout(time.Second)), "WithCallTimeout: a component cannot both"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{}), dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1})), "WithConcurrencyLimit: a component cannot both"},
		{dispatch.WithTool(mcp.Tool{Name: "t"}, passTool, dispatch.WithRateLimit(dispatch.RateLimit{Rate: 1}), dispatch.WithRateLimit(dispatch.RateLimit{})), "WithRateLimit: a component cannot both"},
	} {
		_, err := dispatch.New(testInfo, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v, want an error containing %q", err, c.want)
		}
	}
}
