package client_test

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// TestHTTPMirrorsHeaders: every 2026-07-28 POST carries the mirrored
// headers, and arguments annotated with x-mcp-header travel as
// Mcp-Param-* (base64 when not plain ASCII).
func TestHTTPMirrorsHeaders(t *testing.T) {
	ws, url := startWireServer(t)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	ctx := context.Background()
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "regional", map[string]any{"region": "eu-west", "count": 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "regional", map[string]any{"region": "Z\u00fcrich"}); err != nil {
		t.Fatal(err)
	}
	seen := ws.seen()
	if len(seen) != 6 {
		t.Fatalf("%d POSTs, want 6 (discover, three pages of tools/list, two calls)", len(seen))
	}
	for i, h := range seen {
		if h.Get("Mcp-Protocol-Version") != mcp.Version20260728 {
			t.Errorf("POST %d: MCP-Protocol-Version %q", i, h.Get("Mcp-Protocol-Version"))
		}
		if h.Get("Accept") != "application/json, text/event-stream" || h.Get("Content-Type") != "application/json" {
			t.Errorf("POST %d: Accept %q Content-Type %q", i, h.Get("Accept"), h.Get("Content-Type"))
		}
		if h.Get("Mcp-Session-Id") != "" {
			t.Errorf("POST %d: a session id on 2026-07-28", i)
		}
	}
	want := []http.Header{
		{"Mcp-Method": {"server/discover"}},
		{"Mcp-Method": {"tools/list"}},
		{"Mcp-Method": {"tools/list"}},
		{"Mcp-Method": {"tools/list"}},
		{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"regional"}, "Mcp-Param-Region": {"eu-west"}, "Mcp-Param-Count": {"3"}},
		{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"regional"},
			"Mcp-Param-Region": {"=?base64?" + base64.StdEncoding.EncodeToString([]byte("Z\u00fcrich")) + "?="}},
	}
	for i, w := range want {
		for k := range w {
			if got := seen[i].Get(k); got != w.Get(k) {
				t.Errorf("POST %d: %s = %q, want %q", i, k, got, w.Get(k))
			}
		}
		for _, k := range []string{"Mcp-Name", "Mcp-Param-Region", "Mcp-Param-Count"} {
			if _, ok := w[k]; !ok && seen[i].Get(k) != "" {
				t.Errorf("POST %d: unexpected %s %q", i, k, seen[i].Get(k))
			}
		}
	}
}

// TestHTTPLearnsHeadersOnMismatch: a tool called before it was listed
// goes out without its Mcp-Param-* headers; the server refuses it with
// -32020, and the client lists the tools and retries once.
func TestHTTPLearnsHeadersOnMismatch(t *testing.T) {
	ws, url := startWireServer(t)
	c := testkit.Connect(t, &client.HTTPTransport{URL: url})
	res, err := c.CallTool(context.Background(), "regional", map[string]any{"region": "eu-west"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "eu-west/0" {
		t.Fatalf("regional gave %q", got)
	}
	var methods []string
	for _, h := range ws.seen() {
		methods = append(methods, h.Get("Mcp-Method")+" "+h.Get("Mcp-Param-Region"))
	}
	want := []string{"server/discover ", "tools/call ", "tools/list ", "tools/list ", "tools/list ", "tools/call eu-west"}
	if strings.Join(methods, "|") != strings.Join(want, "|") {
		t.Fatalf("POSTs %q, want %q", methods, want)
	}
}

// TestHTTPKeepsConnectionsAlive: requests answered with JSON or with an
// event stream leave their connection reusable, so sequential calls share
// one.
func TestHTTPKeepsConnectionsAlive(t *testing.T) {
	ws := newWireServer(t)
	srv := httptest.NewUnstartedServer(ws)
	var mu sync.Mutex
	opened := 0
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			opened++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := testkit.Connect(t, &client.HTTPTransport{URL: srv.URL + "/mcp"})
	ctx := context.Background()
	for range 5 {
		if _, err := c.CallTool(ctx, "echo", map[string]any{"text": "x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(ctx, "progress", map[string]any{"n": 2}, client.WithProgress(func(mcp.Progress) {})); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if opened != 1 {
		t.Fatalf("%d connections for 11 sequential requests, want 1", opened)
	}
}
