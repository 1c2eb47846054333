package supervisor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// TestRenderLiveServer renders the tree of a server with requests in
// flight on stdio and over HTTP and a subscription stream open, as JSON
// and as text, and checks what an operator needs to read in it.
func TestRenderLiveServer(t *testing.T) {
	sup := newSupervisor(t)
	entered := make(chan string, 8)
	release := make(chan struct{})
	hub := hub.New(hub.Options{})
	rt, err := dispatch.New(mcp.Implementation{Name: "tree", Version: "1"},
		dispatch.WithSubscriptions(hub),
		dispatch.WithResource(mcp.Resource{URI: "file:///a", Name: "a"}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "a")}}, nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			entered <- req.Info.ID.String()
			select {
			case <-release:
				return mcp.TextResult("released"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartStdioWith(t, sup, rt)
	web := testfixture.StartHTTPWith(t, sup, rt)

	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	srv.Send(t, testkit.Request("two", "tools/call", map[string]any{"name": "hold"}))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		testfixture.PostMCP(t, &http.Client{Timeout: testkit.DefaultTimeout}, web.URL(), testkit.Request(3, "tools/call", map[string]any{"name": "hold"}), nil)
	}()
	srv.Send(t, testkit.Request("sub", dispatch.MethodListen, map[string]any{"notifications": map[string]any{
		"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a", "file:///b"},
	}}))
	for range 3 {
		<-entered
	}
	// Every handler has started, but a request actor may lag its job by
	// one message: wait until the tree shows all three, and the stream.
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("request") == 3 && n.Count("subscription") == 1
	})

	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(sup.Tree()); err != nil {
		t.Fatal(err)
	}
	var tree supervisor.Node
	if err := json.Unmarshal(js.Bytes(), &tree); err != nil {
		t.Fatalf("JSON rendering does not decode: %v\n%s", err, js.String())
	}
	conn := testkit.Find(&tree, "connection")
	listener := testkit.Find(&tree, "listener")
	exec := testkit.Find(&tree, "executor")
	if conn == nil || listener == nil || exec == nil {
		t.Fatalf("missing connection, listener or executor:\n%s", js.String())
	}
	if conn.Attrs["transport"] != "stdio" || conn.Count("writer") != 1 || conn.Count("request") != 2 {
		t.Fatalf("connection: %+v", conn)
	}
	if exec.Attrs["running"] != "3" || exec.Attrs["queued"] != "0" {
		t.Fatalf("executor counts: %+v", exec.Attrs)
	}
	ids := map[string]bool{}
	tree.Walk(func(n *supervisor.Node) {
		if n.Kind != "request" {
			return
		}
		ids[n.Attrs["id"]] = true
		age, err := time.ParseDuration(n.Attrs["age"])
		deadline, derr := time.Parse(time.RFC3339Nano, n.Attrs["deadline"])
		if n.Attrs["method"] != "tools/call" || n.Attrs["state"] != "running" || err != nil || age < 0 || derr != nil || !deadline.After(time.Now()) {
			t.Errorf("request node %s: %+v", n.ID, n.Attrs)
		}
	})
	if !ids["1"] || !ids[`"two"`] || !ids["3"] {
		t.Fatalf("request ids %v", ids)
	}
	if r := testkit.Find(listener, "request"); r == nil || !strings.HasPrefix(r.Attrs["peer"], "127.0.0.1:") {
		t.Fatalf("HTTP request without its peer: %+v", listener)
	}
	sub := testkit.Find(conn, "subscription")
	if sub == nil || sub.Attrs["id"] != `"sub"` || sub.Attrs["toolsListChanged"] != "true" || sub.Attrs["resourceSubscriptions"] != "2" || sub.Attrs["age"] == "" {
		t.Fatalf("subscription node under the connection, with its filter: %+v", sub)
	}

	var text bytes.Buffer
	text.WriteString(sup.Tree().String())
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if lines[0] != "supervisor snodo" {
		t.Fatalf("text rendering starts with %q", lines[0])
	}
	var requestLines int
	for _, l := range lines[1:] {
		if !strings.Contains(l, "── ") {
			t.Fatalf("line without a branch: %q\n%s", l, text.String())
		}
		if strings.Contains(l, "── request ") {
			requestLines++
			for _, attr := range []string{"method=tools/call", "state=running", "age=", "deadline="} {
				if !strings.Contains(l, attr) {
					t.Errorf("request line without %s: %q", attr, l)
				}
			}
		}
	}
	if requestLines != 3 {
		t.Fatalf("%d request lines, want 3:\n%s", requestLines, text.String())
	}
	if !strings.Contains(text.String(), "── subscription ") || !strings.Contains(text.String(), "toolsListChanged=true") {
		t.Fatalf("no subscription line with its filter:\n%s", text.String())
	}

	close(release)
	wg.Wait()
	srv.Client.AwaitResponse(t, "1")
	srv.Client.AwaitResponse(t, `"two"`)
	testkit.WaitNoRequests(t, sup)
	// The stream ends when its client cancels it.
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "sub"}))
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("subscription") == 0 })
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
}
