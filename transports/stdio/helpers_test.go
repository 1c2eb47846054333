package stdio_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// gate lets a test hold a tool call until it releases it.
type gate struct {
	entered chan string
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan string, 64), release: make(chan struct{})} }

// testRuntime serves a few tools; opts come after the test's own (a
// logger given there replaces the silent one).
func testRuntime(t testing.TB, g *gate, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "stdio-test", Version: "1.0.0"}, append([]dispatch.Option{
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(a.Text), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			g.entered <- req.Info.ID.String()
			select {
			case <-g.release:
				return mcp.TextResult("released"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
		dispatch.WithTool(mcp.Tool{Name: "stubborn"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			// Ignores cancellation until released.
			g.entered <- req.Info.ID.String()
			<-g.release
			return mcp.TextResult("finished anyway"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "sleep"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(50 * time.Millisecond):
				return mcp.TextResult("slept"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// executorCount reads one of the executor's counts (running, queued,
// subscriptions) from the tree.
func executorCount(t testing.TB, sup *supervisor.Supervisor, name string) int {
	t.Helper()
	n := testkit.Find(sup.Tree(), "executor")
	if n == nil {
		t.Fatal("no executor in the tree")
	}
	v, err := strconv.Atoi(n.Attrs[name])
	if err != nil {
		t.Fatalf("executor %s: %v", name, err)
	}
	return v
}

func mustWait(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("handler never started")
		return ""
	}
}
