package supervisor

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// echoActor answers every call at once.
type echoActor struct{}

func (echoActor) Receive(c actor.Context) {
	if _, ok := c.Message().(*ToolCall); ok {
		c.Respond(&ToolResult{Result: mcp.TextResult("ok")})
	}
}

// BenchmarkToolHandler is one tools/call handler invocation, as the
// executor makes it in a tree: a function handler, against the same
// call served by a long-lived actor (Named) and by an actor started for
// the call (PerCall). The actor's cost is the call actor, the message
// round trip and, per call, the spawn and stop.
func BenchmarkToolHandler(b *testing.B) {
	rt, err := dispatch.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, dispatch.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	sup, err := New(rt)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := sup.Close(context.Background()); err != nil {
			b.Error(err)
		}
	}()
	props := actor.PropsFromProducer(func() actor.Actor { return echoActor{} })
	if _, err := sup.Spawn("echo", props, nil); err != nil {
		b.Fatal(err)
	}
	ctx := tree.ContextWithSystem(context.Background(), sup.sys)
	req := &dispatch.CallToolRequest{Name: "echo", Arguments: json.RawMessage(`{}`),
		Info: &dispatch.RequestInfo{ID: jsonrpc.IntID(1), Method: "tools/call"}}
	for _, bc := range []struct {
		name string
		h    dispatch.ToolHandler
	}{
		{"function", func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}},
		{"named", Named("echo").Tool()},
		{"per-call", PerCall(props).Tool()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := bc.h(ctx, req)
				if err != nil || len(r.Content) != 1 {
					b.Fatalf("%+v %v", r, err)
				}
			}
		})
	}
}
