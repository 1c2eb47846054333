package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func pidOf(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), "pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// A spawned server that exits is started again: the call that killed it
// fails (it may have run), the next one reaches a new process.
func TestReconnectRestartsACommand(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(ctx, serverCommand(t, "mortal"), client.WithReconnect(client.Reconnect{InitialDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first := pidOf(t, c)
	if _, err := c.CallTool(ctx, "die", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("the call that ended the server: %v", err)
	}
	if second := pidOf(t, c); second == first {
		t.Fatalf("the same process %s answered", first)
	}
	if n := c.Reconnects(); n != 1 {
		t.Fatalf("%d reconnections", n)
	}

	// Without the option the connection stays down.
	plain, err := client.New(ctx, serverCommand(t, "mortal"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, _ = plain.CallTool(ctx, "die", nil)
	if _, err := plain.CallTool(ctx, "pid", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("without WithReconnect: %v", err)
	}
}

// An HTTP endpoint that went away is tried again a bounded number of
// times; once it is back, the next request reaches it.
func TestReconnectRetriesAnHTTPEndpoint(t *testing.T) {
	rt, err := newRuntime()
	if err != nil {
		t.Fatal(err)
	}
	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	serve := func(addr string) (*http.Server, net.Listener) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go func() { _ = srv.Serve(ln) }()
		return srv, ln
	}
	srv, ln := serve("127.0.0.1:0")
	addr := ln.Addr().String()
	ctx := context.Background()
	c, err := client.New(ctx, &client.HTTPTransport{URL: "http://" + addr + "/mcp"},
		client.WithReconnect(client.Reconnect{Attempts: 3, InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "echo", map[string]any{"text": "a"}); err != nil {
		t.Fatal(err)
	}
	_ = srv.Close()
	if _, err := c.CallTool(ctx, "echo", map[string]any{"text": "b"}); !errors.Is(err, client.ErrReconnectFailed) {
		t.Fatalf("with the endpoint down: %v", err)
	}
	srv, _ = serve(addr)
	defer srv.Close()
	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "c"})
	if err != nil {
		t.Fatalf("with the endpoint back: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "c" {
		t.Fatalf("echo: %q", got)
	}
}
