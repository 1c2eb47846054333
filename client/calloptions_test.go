package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// WithCallLogging routes one request's log messages to its own function
// at its own level; WithCapabilities declares what the request may be
// asked for, and what no handler answers comes back to the caller.
func TestPerCallLoggingAndCapabilities(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "s", Version: "1"}, dispatch.WithClientLogging(),
		dispatch.WithTool(mcp.Tool{Name: "log"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			dispatch.ClientLogger(ctx).Debug("fine detail")
			dispatch.ClientLogger(ctx).Warn("careful")
			return mcp.TextResult("ok"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "ask"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Info.ClientCapabilities.Elicitation == nil {
				return mcp.TextResult("not asked"), nil
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"q": mcp.ElicitForm("?", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)),
			}}
		}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var global, local []string
	c := testkit.Connect(t, inprocess.New(rt), client.WithLogMessages("warning", func(m mcp.LogMessage) {
		mu.Lock()
		defer mu.Unlock()
		global = append(global, m.Level)
	}))

	ctx := context.Background()
	if _, err := c.CallTool(ctx, "log", nil, client.WithCallLogging("debug", func(m mcp.LogMessage) { local = append(local, m.Level) })); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(global) != 0 || len(local) != 2 || local[0] != "debug" {
		t.Fatalf("per-call %v, client-wide %v", local, global)
	}
	mu.Unlock()
	res, err := c.CallTool(ctx, "ask", nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "not asked" {
		t.Fatalf("without capabilities: %v %v", res, err)
	}
	_, err = c.CallTool(ctx, "ask", nil, client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
	var ir *client.InputRequiredError
	if !errors.As(err, &ir) || ir.Requests["q"] == nil {
		t.Fatalf("with elicitation declared and no handler: %v", err)
	}
}

// A request that declares another party's capabilities leaves its input
// to that party: the registered handler is not asked, and the requests
// come back to the caller.
func TestDeclaredCapabilitiesBypassTheHandlers(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "s", Version: "1"},
		dispatch.WithTool(mcp.Tool{Name: "ask"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, ok := req.Input.Elicitation("q"); ok {
				return mcp.TextResult("answered"), nil
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"q": mcp.ElicitForm("?", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)),
			}}
		}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := 0
	c := testkit.Connect(t, inprocess.New(rt), client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"a": "x"}}, nil
	}))

	ctx := context.Background()
	if res, err := c.CallTool(ctx, "ask", nil); err != nil || res.Content[0].(*mcp.TextContent).Text != "answered" {
		t.Fatalf("with the handler answering: %v %v", res, err)
	}
	_, err = c.CallTool(ctx, "ask", nil, client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
	var ir *client.InputRequiredError
	if !errors.As(err, &ir) || ir.Requests["q"] == nil || len(ir.Missing) != 1 || ir.Missing[0] != "elicitation/create" {
		t.Fatalf("with capabilities declared for another party: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Fatalf("the handler was asked %d times, want 1", asked)
	}
}

// WithMeta adds the application's own keys to one request's _meta; the
// protocol's keys, which the client sets, win over the same keys given
// there.
func TestWithMetaAddsKeysAndTheProtocolsWin(t *testing.T) {
	metas := make(chan map[string]json.RawMessage, 2)
	rt, err := dispatch.New(mcp.Implementation{Name: "s", Version: "1"},
		dispatch.WithTool(mcp.Tool{Name: "meta"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(req.Info.Meta, &m); err != nil {
				return nil, err
			}
			metas <- m
			return mcp.TextResult("ok"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.Connect(t, inprocess.New(rt))
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "meta", nil, client.WithMeta(map[string]any{
		"example.com/trace":     "t-1",
		mcp.MetaProtocolVersion: "1999-01-01",
	})); err != nil {
		t.Fatal(err)
	}
	m := <-metas
	if string(m["example.com/trace"]) != `"t-1"` {
		t.Errorf("the application's key: %s, want \"t-1\" (all: %v)", m["example.com/trace"], m)
	}
	if got := string(m[mcp.MetaProtocolVersion]); got != `"`+mcp.Version20260728+`"` {
		t.Errorf("the protocol version key: %s, want the client's", got)
	}
	if _, err := c.CallTool(ctx, "meta", nil); err != nil {
		t.Fatal(err)
	}
	if m := <-metas; m["example.com/trace"] != nil {
		t.Errorf("a call without WithMeta carried the other call's key: %v", m)
	}
}
