package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// BenchmarkPolicyOverhead is what a component policy adds to an executed
// tools/call (BenchmarkExecuteEcho's call, no schema): none, each policy
// alone (a limit never reached), all three, and one middleware. Run the
// cases in one run and compare each with none.
func BenchmarkPolicyOverhead(b *testing.B) {
	passthrough := func(next dispatch.InvocationHandler) dispatch.InvocationHandler {
		return func(ctx context.Context, inv *dispatch.Invocation) (any, error) { return next(ctx, inv) }
	}
	for _, bc := range []struct {
		name string
		opts []dispatch.ComponentOption
	}{
		{"none", nil},
		{"timeout", []dispatch.ComponentOption{dispatch.WithCallTimeout(time.Minute)}},
		{"concurrency", []dispatch.ComponentOption{dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 4})}},
		{"rate", []dispatch.ComponentOption{dispatch.WithRateLimit(dispatch.RateLimit{Rate: 1e12, Burst: 1 << 30})}},
		{"all", []dispatch.ComponentOption{dispatch.WithCallTimeout(time.Minute),
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 4}),
			dispatch.WithRateLimit(dispatch.RateLimit{Rate: 1e12, Burst: 1 << 30})}},
		{"middleware", []dispatch.ComponentOption{dispatch.WithMiddleware(passthrough)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rt, err := dispatch.New(mcp.Implementation{Name: "bench", Version: "1.0.0"},
				dispatch.WithLogger(slog.New(slog.DiscardHandler)),
				dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
					var a struct {
						Text string `json:"text"`
					}
					if err := json.Unmarshal(req.Arguments, &a); err != nil {
						return nil, err
					}
					return mcp.TextResult(a.Text), nil
				}, bc.opts...))
			if err != nil {
				b.Fatal(err)
			}
			msg, err := jsonrpc.Decode(echoCall)
			if err != nil {
				b.Fatal(err)
			}
			call, out := rt.Admit(&dispatch.Request{Message: msg, Transport: dispatch.TransportStdio})
			if call == nil {
				b.Fatalf("not admitted: %s", out.Frame)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if out := rt.Execute(ctx, call); !bytes.Contains(out.Frame, wantText) {
					b.Fatalf("unexpected frame %s", out.Frame)
				}
			}
		})
	}
}
