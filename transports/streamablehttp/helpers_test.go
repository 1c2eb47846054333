package streamablehttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// gate lets a test hold a tool call until it releases it, and see when the
// call's context ends.
type gate struct {
	entered   chan string
	cancelled chan string
	release   chan struct{}
	hub       *hub.Hub // the Runtime's subscription source
}

func newGate() *gate {
	return &gate{entered: make(chan string, 64), cancelled: make(chan string, 64), release: make(chan struct{}),
		hub: hub.New(hub.Options{})}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// limitedSupervisor returns a supervision tree for rt with limits, closed
// (and checked for dead letters) when the test ends, after the transports
// started under it.
func limitedSupervisor(t testing.TB, rt *dispatch.Runtime, limits supervisor.Limits) *supervisor.Supervisor {
	t.Helper()
	sup, err := supervisor.New(rt, supervisor.WithLimits(limits))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
	})
	return sup
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

// waitExecutorIdle waits until the executor runs no job.
func waitExecutorIdle(t testing.TB, sup *supervisor.Supervisor) {
	t.Helper()
	deadline := time.Now().Add(testkit.DefaultTimeout)
	for executorCount(t, sup, "running") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the executor still runs a job")
		}
		runtime.Gosched()
	}
}

// testRuntime serves a few tools and subscriptions/listen from g's hub,
// with extra options after its own.
func testRuntime(t testing.TB, g *gate, extra ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	if g == nil {
		g = newGate()
	}
	opts := []dispatch.Option{
		dispatch.WithLogger(quiet()),
		dispatch.WithSubscriptions(g.hub),
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
			id := req.Info.ID.String()
			g.entered <- id
			select {
			case <-g.release:
				return mcp.TextResult("released"), nil
			case <-ctx.Done():
				g.cancelled <- id
				return nil, ctx.Err()
			}
		}),
		dispatch.WithTool(mcp.Tool{Name: "progress"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult("done"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "progress-hold"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1}); err != nil {
				return nil, err
			}
			id := req.Info.ID.String()
			g.entered <- id
			select {
			case <-g.release:
				return mcp.TextResult("released"), nil
			case <-ctx.Done():
				g.cancelled <- id
				return nil, ctx.Err()
			}
		}),
		dispatch.WithTool(mcp.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"shard":{"type":"integer","x-mcp-header":"Shard"}}}`)},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("ok"), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "whoami"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(fmt.Sprint(req.Info.Principal)), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "fail"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -31999, Message: "application refused"}
		}),
		dispatch.WithTool(mcp.Tool{Name: "panic"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}),
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "http-test", Version: "1.0.0"}, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func waitFor(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("timed out waiting for the handler")
		return ""
	}
}

// call builds a tools/call frame.
func call(id any, tool string, args map[string]any) []byte {
	p := map[string]any{"name": tool}
	if args != nil {
		p["arguments"] = args
	}
	return testkit.Request(id, "tools/call", p)
}

// progressCall is a tools/call frame asking for progress.
func progressCall(id any, tool string) []byte {
	return testkit.Request(id, "tools/call", map[string]any{"name": tool, "_meta": map[string]any{"progressToken": "tok"}})
}

// listenFrame opens a stream for tools/list_changed.
func listenFrame(id any) []byte {
	return listenFilter(id, map[string]any{"toolsListChanged": true})
}

// listenFilter opens a stream with the given notifications filter.
func listenFilter(id any, notifications map[string]any) []byte {
	return testkit.Request(id, dispatch.MethodListen, map[string]any{"notifications": notifications})
}

// rawConn is a plain TCP connection to a listener, for tests of the
// bounds net/http's client would hide.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, br: bufio.NewReader(c)}
}

// rawRequest renders an HTTP/1.1 POST of body with the MCP headers for
// frame (body may differ from frame to test mismatches).
func rawRequest(path string, frame []byte, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", path)
	for k, vs := range testfixture.HTTPHeaders(frame) {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	return b.String()
}

// readResponse reads one HTTP response from the connection.
func (c *rawConn) readResponse(t *testing.T) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testkit.DefaultTimeout))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading response body: %v", err)
	}
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp
}

// readHead reads one response's status line and headers only (the server
// may reset the connection before its body arrives).
func (c *rawConn) readHead(t *testing.T) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testkit.DefaultTimeout))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	return resp
}

// waitClosed reads until the server closes the connection and returns
// what it sent before closing.
func (c *rawConn) waitClosed(t *testing.T) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testkit.DefaultTimeout))
	b, err := io.ReadAll(c.br)
	var ne net.Error
	if err != nil && !(isReset(err)) {
		if ok := asNetError(err, &ne); ok && ne.Timeout() {
			t.Fatalf("the server did not close the connection")
		}
	}
	return b
}

func itoa(n int) string { return strconv.Itoa(n) }

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe"))
}

func asNetError(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}
