package testkit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
)

func echoRuntime(t *testing.T) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "kit", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Text string }
				if err := json.Unmarshal(req.Arguments, &a); err != nil {
					return nil, err
				}
				return mcp.TextResult(a.Text), nil
			}))
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestConnectEveryTransport(t *testing.T) {
	for name, connect := range map[string]func(testing.TB, *dispatch.Runtime, ...client.Option) *client.Client{
		"direct": func(t testing.TB, rt *dispatch.Runtime, opts ...client.Option) *client.Client {
			return testkit.Connect(t, inprocess.New(rt), opts...)
		},
		"stdio": testkit.ConnectStdio,
		"http":  testkit.ConnectHTTP,
	} {
		t.Run(name, func(t *testing.T) {
			c := connect(t, echoRuntime(t))
			res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "Gr\u00fc\u00dfe"})
			if err != nil || mcp.TextOf(res.Content) != "Gr\u00fc\u00dfe" {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}
