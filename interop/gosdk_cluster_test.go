package interop

// The official Go SDK's client in initialize-era sessions across
// instances: a clustertest cluster behind its round-robin proxy, each
// instance relaying the session's requests to the one that owns it.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/dispatch"
	smcp "github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// TestGoSDKCluster: a go-sdk client pinned to 2025-11-25 and to
// 2025-06-18 initializes through the proxy (on one instance), then lists
// and calls tools, answers an elicitation and closes its session, each
// request reaching the next instance; every call runs on the owner.
func TestGoSDKCluster(t *testing.T) {
	form := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	cl := clustertest.Start(t, clustertest.Config{
		Instances: 3,
		Sessions:  &streamablehttp.SessionConfig{},
		Options: func(in *clustertest.Instance) []dispatch.Option {
			return []dispatch.Option{
				dispatch.WithTool(smcp.Tool{Name: "whoami"}, func(context.Context, *dispatch.CallToolRequest) (*smcp.CallToolResult, error) {
					return smcp.TextResult(in.Name), nil
				}),
				dispatch.WithTool(smcp.Tool{Name: "ask_name"}, func(_ context.Context, req *dispatch.CallToolRequest) (*smcp.CallToolResult, error) {
					ans, ok := req.Input.Elicitation("name")
					if !ok {
						return nil, &dispatch.InputRequired{Requests: map[string]smcp.InputRequest{"name": smcp.ElicitForm("Your name?", form)}}
					}
					return smcp.TextResult(fmt.Sprintf("hello %v from %s", ans.Content["name"], in.Name)), nil
				}),
			}
		},
	})
	for _, version := range []string{v20251125, v20250618} {
		t.Run(version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1.8.0"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Lin"}}, nil
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
			defer hc.CloseIdleConnections()
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: cl.URL(), HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s", got)
			}
			owner := ""
			for i := range 6 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
				if err != nil || res.IsError || len(res.Content) != 1 {
					t.Fatalf("call %d: %v %+v", i, err, res)
				}
				name := res.Content[0].(*mcp.TextContent).Text
				if owner == "" {
					owner = name
				} else if name != owner {
					t.Fatalf("call %d ran on %s, the session's owner is %s", i, name, owner)
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name", Arguments: map[string]any{}})
			if err != nil || res.IsError || len(res.Content) != 1 {
				t.Fatalf("ask_name: %v %+v", err, res)
			}
			if got, want := res.Content[0].(*mcp.TextContent).Text, "hello Lin from "+owner; got != want {
				t.Fatalf("ask_name: %q, want %q", got, want)
			}
			if err := cs.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
		})
	}
}
