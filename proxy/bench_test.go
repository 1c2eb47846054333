package proxy_test

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/transports/inprocess"
)

func benchRemote(b *testing.B) *dispatch.Runtime {
	rt, err := dispatch.New(mcp.Implementation{Name: "remote", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(string(req.Arguments)), nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

func benchCalls(b *testing.B, rt *dispatch.Runtime) {
	ctx := context.Background()
	c, err := client.New(ctx, inprocess.New(rt))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := map[string]any{"text": "hello"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDirectCall is a tool call from a client to the server, in
// process.
func BenchmarkDirectCall(b *testing.B) { benchCalls(b, benchRemote(b)) }

// BenchmarkProxiedCall is the same call through a proxy Runtime in front
// of the server (both hops in process): the proxy's own cost.
func BenchmarkProxiedCall(b *testing.B) {
	backend, err := proxy.Dial(context.Background(), inprocess.New(benchRemote(b)), proxy.WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	benchCalls(b, backend.Runtime())
}
