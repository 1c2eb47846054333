package streamablehttp_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// statusCase is one row of the status-code table.
type statusCase struct {
	name  string
	opts  []streamablehttp.Option
	frame []byte                   // the request body (default: a discover request)
	edit  func(*http.Request)      // changes the request before it is sent
	raw   func(path string) string // a raw HTTP/1.1 request instead
	// The expected answer.
	status int
	code   int64 // the JSON-RPC error code; 0 for a result or no body
	header map[string]string
	empty  bool // no body
}

func discover(id any) []byte { return testkit.Request(id, "server/discover", nil) }

func setHeader(k, v string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(k, v) }
}

// statusCases is the status-code table of the Streamable HTTP transport.
// It runs, unchanged, against the native listener and the http.Handler.
var statusCases = []statusCase{
	{name: "discover", status: 200},
	{name: "tools/call", frame: call(1, "echo", map[string]any{"text": "hi"}), status: 200},
	{name: "other path", edit: func(r *http.Request) { r.URL.Path = "/elsewhere" }, status: 404},
	{name: "GET", edit: func(r *http.Request) { r.Method = http.MethodGet; r.Body, r.ContentLength = nil, 0 }, status: 405, code: -32600, header: map[string]string{"Allow": "POST"}},
	{name: "DELETE", edit: func(r *http.Request) { r.Method = http.MethodDelete }, status: 405, code: -32600, header: map[string]string{"Allow": "POST"}},
	{name: "no session id is issued", status: 200, header: map[string]string{"Mcp-Session-Id": ""}},

	// Origin and Host.
	{name: "loopback origin", edit: setHeader("Origin", "http://localhost:5173"), status: 200},
	{name: "IPv6 loopback origin", edit: setHeader("Origin", "http://[::1]:8080"), status: 200},
	{name: "foreign origin", edit: setHeader("Origin", "https://evil.example"), status: 403, code: -32600},
	{name: "origin with userinfo", edit: setHeader("Origin", "http://user@localhost"), status: 403, code: -32600},
	{name: "null origin", edit: setHeader("Origin", "null"), status: 403, code: -32600},
	{name: "two origins", edit: func(r *http.Request) { r.Header["Origin"] = []string{"http://localhost", "http://localhost"} }, status: 403, code: -32600},
	{name: "pinned origin port matches", opts: []streamablehttp.Option{streamablehttp.WithAllowedOriginHosts("localhost:3000")}, edit: setHeader("Origin", "http://localhost:3000"), status: 200},
	{name: "pinned origin port differs", opts: []streamablehttp.Option{streamablehttp.WithAllowedOriginHosts("localhost:3000")}, edit: setHeader("Origin", "http://localhost:4000"), status: 403, code: -32600},
	{name: "pinned origin without port", opts: []streamablehttp.Option{streamablehttp.WithAllowedOriginHosts("localhost:3000")}, edit: setHeader("Origin", "http://localhost"), status: 403, code: -32600},
	{name: "custom origin list", opts: []streamablehttp.Option{streamablehttp.WithAllowedOriginHosts("app.example")}, edit: setHeader("Origin", "https://app.example"), status: 200},
	{name: "custom list drops loopback", opts: []streamablehttp.Option{streamablehttp.WithAllowedOriginHosts("app.example")}, edit: setHeader("Origin", "http://localhost"), status: 403, code: -32600},
	{name: "allowed host", opts: []streamablehttp.Option{streamablehttp.WithAllowedHosts("mcp.example")}, edit: func(r *http.Request) { r.Host = "mcp.example" }, status: 200},
	{name: "host not allowed", opts: []streamablehttp.Option{streamablehttp.WithAllowedHosts("mcp.example")}, status: 403, code: -32600},
	{name: "host port pinned", opts: []streamablehttp.Option{streamablehttp.WithAllowedHosts("mcp.example:8443")}, edit: func(r *http.Request) { r.Host = "mcp.example:9000" }, status: 403, code: -32600},

	// Media types.
	{name: "text/plain body", edit: setHeader("Content-Type", "text/plain"), status: 415, code: -32600},
	{name: "no content type", edit: func(r *http.Request) { r.Header.Del("Content-Type") }, status: 415, code: -32600},
	{name: "json with utf-8 charset", edit: setHeader("Content-Type", "application/json; charset=utf-8"), status: 200},
	{name: "json with another charset", edit: setHeader("Content-Type", "application/json; charset=latin1"), status: 415, code: -32600},
	{name: "accept json only", edit: setHeader("Accept", "application/json"), status: 406, code: -32600},
	{name: "accept sse only", edit: setHeader("Accept", "text/event-stream"), status: 406, code: -32600},
	{name: "no accept", edit: func(r *http.Request) { r.Header.Del("Accept") }, status: 406, code: -32600},
	{name: "accept anything", edit: setHeader("Accept", "*/*"), status: 200},
	{name: "accept refuses sse", edit: setHeader("Accept", "application/json, text/event-stream;q=0"), status: 406, code: -32600},

	// Lengths.
	{name: "chunked body", edit: func(r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), -1
	}, status: 411, code: -32600},
	{name: "no content length", raw: func(path string) string {
		return rawRequest(path, discover(1)) + "\r\n"
	}, status: 411, code: -32600},
	{name: "body over the limit", opts: []streamablehttp.Option{streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: 64})}, frame: call(1, "echo", map[string]any{"text": strings.Repeat("x", 100)}), status: 413, code: -32600},
	{name: "body at the limit", opts: []streamablehttp.Option{streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: int64(len(discover(1)))})}, status: 200},

	// JSON and envelope.
	{name: "invalid JSON", frame: []byte(`{"jsonrpc":"2.0","id":1,`), status: 400, code: -32700},
	{name: "batch", frame: []byte(`[` + string(discover(1)) + `]`), status: 400, code: -32600},
	{name: "id out of bounds", frame: []byte(`{"jsonrpc":"2.0","id":1.5,"method":"server/discover"}`), status: 400, code: -32600},
	{name: "notification", frame: testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}), status: 202, empty: true},
	{name: "JSON-RPC response", frame: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), status: 202, empty: true},

	// Mirrored headers (checked by the dispatch core).
	{name: "no protocol version header", edit: func(r *http.Request) { r.Header.Del("Mcp-Protocol-Version") }, status: 400, code: -32020},
	{name: "protocol version mismatch", edit: setHeader("Mcp-Protocol-Version", "2025-11-25"), status: 400, code: -32020},
	{name: "no method header", edit: func(r *http.Request) { r.Header.Del("Mcp-Method") }, status: 400, code: -32020},
	{name: "method header mismatch", edit: setHeader("Mcp-Method", "tools/list"), status: 400, code: -32020},
	{name: "repeated method header", edit: func(r *http.Request) { r.Header["Mcp-Method"] = []string{"server/discover", "server/discover"} }, status: 400, code: -32020},
	{name: "lower-case header names", edit: func(r *http.Request) {
		for _, k := range []string{"Mcp-Method", "Mcp-Protocol-Version"} {
			v := r.Header.Get(k)
			r.Header.Del(k)
			r.Header[strings.ToLower(k)] = []string{v}
		}
	}, status: 200},
	{name: "whitespace around values", edit: setHeader("Mcp-Method", "  server/discover "), status: 200},
	{name: "no name header", frame: call(1, "echo", nil), edit: func(r *http.Request) { r.Header.Del("Mcp-Name") }, status: 400, code: -32020},
	{name: "name header mismatch", frame: call(1, "echo", nil), edit: setHeader("Mcp-Name", "hold"), status: 400, code: -32020},
	{name: "base64 name header", frame: call(1, "echo", nil), edit: setHeader("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("echo"))+"?="), status: 200},
	{name: "bad base64 name header", frame: call(1, "echo", nil), edit: setHeader("Mcp-Name", "=?base64?***?="), status: 400, code: -32020},
	{name: "param headers", frame: call(1, "regional", map[string]any{"region": "eu-west", "shard": 7}), edit: func(r *http.Request) {
		r.Header.Set("Mcp-Param-Region", "eu-west")
		r.Header["mcp-param-shard"] = []string{" 7 "}
	}, status: 200},
	{name: "param header missing", frame: call(1, "regional", map[string]any{"region": "eu-west"}), status: 400, code: -32020},
	{name: "param header mismatch", frame: call(1, "regional", map[string]any{"region": "eu-west"}), edit: setHeader("Mcp-Param-Region", "us-east"), status: 400, code: -32020},
	{name: "param header repeated", frame: call(1, "regional", map[string]any{"region": "eu-west"}), edit: func(r *http.Request) {
		r.Header["Mcp-Param-Region"] = []string{"eu-west", "eu-west"}
	}, status: 400, code: -32020},
	{name: "param header in base64", frame: call(1, "regional", map[string]any{"region": "zürich"}), edit: setHeader("Mcp-Param-Region", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("zürich"))+"?="), status: 200},
	{name: "null argument needs no header", frame: call(1, "regional", map[string]any{"region": nil}), status: 200},
	{name: "unknown version", frame: testkit.Request(1, "server/discover", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2030-01-01"}}), status: 400, code: -32022},
	{name: "missing _meta capabilities", frame: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`), status: 400, code: -32602},

	// Outcomes of running the request.
	{name: "unknown method", frame: testkit.Request(1, "nothing/here", nil), status: 404, code: -32601},
	{name: "removed method", frame: testkit.Request(1, "ping", nil), status: 404, code: -32601},
	{name: "unknown tool", frame: call(1, "nope", nil), status: 400, code: -32602},
	{name: "application error code", frame: call(1, "fail", nil), status: 200, code: -31999},
	{name: "handler panic", frame: call(1, "panic", nil), status: 500, code: -32603},
	{name: "request timeout", opts: []streamablehttp.Option{streamablehttp.WithLimits(streamablehttp.Limits{RequestTimeout: 50 * time.Millisecond})}, frame: call(1, "hold", nil), status: 504, code: -32603},
}

func TestStatusCodes(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			for _, tc := range statusCases {
				t.Run(tc.name, func(t *testing.T) { runStatusCase(t, tg, tc) })
			}
		})
	}
}

func runStatusCase(t *testing.T, tg target, tc statusCase) {
	ep := tg.start(t, testRuntime(t, nil), tc.opts...)
	frame := tc.frame
	if frame == nil {
		frame = discover(1)
	}
	var reply *testfixture.HTTPReply
	if tc.raw != nil {
		c := dial(t, ep.addr)
		if _, err := c.Write([]byte(tc.raw("/mcp"))); err != nil {
			t.Fatal(err)
		}
		reply = testfixture.ReadHTTPReply(t, c.readResponse(t), "")
	} else {
		reply = testfixture.PostMCP(t, nil, ep.url, frame, tc.edit)
	}
	if reply.Status != tc.status {
		t.Fatalf("status %d, want %d; body %s", reply.Status, tc.status, reply.Body)
	}
	for k, v := range tc.header {
		if got := reply.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if tc.empty {
		if len(reply.Body) != 0 {
			t.Errorf("body %q, want none", reply.Body)
		}
		return
	}
	if tc.status == http.StatusNotFound && tc.code == 0 {
		return // a path that is not the endpoint: no JSON-RPC body
	}
	last := reply.Last()
	if last == nil {
		t.Fatalf("no JSON-RPC frame in %q (%s)", reply.Body, reply.Header.Get("Content-Type"))
	}
	switch {
	case tc.code == 0 && last.Error != nil:
		t.Fatalf("error %d %s, want a result", last.Error.Code, last.Error.Message)
	case tc.code != 0 && (last.Error == nil || last.Error.Code != tc.code):
		t.Fatalf("frame %s, want error code %d", last.Raw, tc.code)
	}
}
