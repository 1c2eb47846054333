package dispatch_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Component policies: a search tool limited to 4 calls at once (8 more
// may wait), a costly tool limited per caller to one call a minute, a
// shell tool bounded to 5 s, a 30 s timeout for everything else, and a
// logging middleware around every handler.
func ExampleWithComponentPolicies() {
	logCalls := func(next dispatch.InvocationHandler) dispatch.InvocationHandler {
		return func(ctx context.Context, inv *dispatch.Invocation) (any, error) {
			start := time.Now()
			res, err := next(ctx, inv)
			slog.Debug("call", "name", inv.Name, "took", time.Since(start), "err", err)
			return res, err
		}
	}
	answer := func(text string) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(text), nil
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "tools", Version: "1.0.0"},
		dispatch.WithComponentPolicies(
			dispatch.WithCallTimeout(30*time.Second),
			dispatch.WithMiddleware(logCalls)),
		dispatch.WithTool(mcp.Tool{Name: "search"}, answer("found"),
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 4, MaxWaiting: 8})),
		dispatch.WithTool(mcp.Tool{Name: "costly"}, answer("done"),
			dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Minute), Burst: 1})),
		dispatch.WithTool(mcp.Tool{Name: "shell"}, answer("ran"),
			dispatch.WithCallTimeout(5*time.Second)))
	if err != nil {
		panic(err)
	}
	fmt.Println(send(rt, 1, "tools/call", map[string]any{"name": "costly"})["content"])
	refused := send(rt, 2, "tools/call", map[string]any{"name": "costly"})
	data := refused["data"].(map[string]any)
	fmt.Println(refused["code"], data["limit"], data["retryAfterMs"].(float64) > 59000)
	for _, u := range rt.Policies() {
		fmt.Printf("%s timeout=%v max_concurrent=%d rate=%v\n", u.Name, u.Timeout, u.MaxConcurrent, u.Rate)
	}
	// Output:
	// [map[text:done type:text]]
	// -31429 rate true
	// costly timeout=30s max_concurrent=0 rate=0.016666666666666666
	// search timeout=30s max_concurrent=4 rate=0
	// shell timeout=5s max_concurrent=0 rate=0
}

// A tool that streams for as long as its client listens opts out of the
// server's 30 s timeout; every other tool keeps it.
func ExampleWithCallTimeout_optOut() {
	answer := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("ok"), nil
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "tools", Version: "1.0.0"},
		dispatch.WithComponentPolicies(dispatch.WithCallTimeout(30*time.Second)),
		dispatch.WithTool(mcp.Tool{Name: "follow"}, answer, dispatch.WithCallTimeout(0)),
		dispatch.WithTool(mcp.Tool{Name: "search"}, answer))
	if err != nil {
		panic(err)
	}
	for _, u := range rt.Policies() {
		fmt.Printf("%s timeout=%v\n", u.Name, u.Timeout)
	}
	// Output:
	// search timeout=30s
}
