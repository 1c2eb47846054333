package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) {
	if code := runTestChild(); code >= 0 {
		os.Exit(code)
	}
	testkit.VerifyTestMain(m)
}

type env struct {
	t      *testing.T
	url    string
	client *http.Client
	b      *bridge
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// startBridge serves a bridge whose stdio servers are this test binary in
// the child mode named.
func startBridge(t *testing.T, sessions bool, child string) *env {
	t.Helper()
	t.Setenv(childEnv, child) // the stdio servers inherit it
	b := newBridge([]string{os.Args[0]}, sessions, "/mcp", testLogger(t))
	if !sessions {
		b.loadFront()
		if b.front == nil {
			t.Fatal("the library front did not load")
		}
	}
	client := &http.Client{Transport: &http.Transport{}}
	srv := httptest.NewServer(b)
	// Cleanups run last-in first-out: the bridge ends its streams and
	// stdio servers, then the HTTP server and the client close.
	t.Cleanup(client.CloseIdleConnections)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		b.close(ctx)
	})
	return &env{t: t, url: srv.URL + "/mcp", client: client, b: b}
}

// request2026 is a 2026-07-28 request with its mirrored headers.
func request2026(id any, method string, params map[string]any) ([]byte, http.Header) {
	h := http.Header{}
	h.Set("MCP-Protocol-Version", mcp.Version20260728)
	h.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		h.Set("Mcp-Name", name)
	}
	return testkit.Request(id, method, params), h
}

func (e *env) do(ctx context.Context, method string, body []byte, h http.Header) *http.Response {
	e.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, e.url, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// post sends a request and reads the whole response.
func (e *env) post(body []byte, h http.Header) (*http.Response, []byte) {
	e.t.Helper()
	resp := e.do(context.Background(), http.MethodPost, body, h)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, b
}

type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

func decode(t *testing.T, b []byte) rpc {
	t.Helper()
	var r rpc
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r
}

// events splits an event-stream body into its data payloads.
func events(body []byte) [][]byte {
	var out [][]byte
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, []byte(data))
		}
	}
	return out
}

func TestStatelessRelayRestoresClientIDs(t *testing.T) {
	e := startBridge(t, false, "snodo")
	body, h := request2026("a", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}})
	resp, b := e.post(body, h)
	r := decode(t, b)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || string(r.ID) != `"a"` || !strings.Contains(string(r.Result), `"text":"hello"`) {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if err := testkit.ValidateFrame(testfixture.Version, b, "tools/call"); err != nil {
		t.Errorf("relayed frame: %v", err)
	}
	body, h = request2026(2, "no/such", nil)
	if resp, b := e.post(body, h); resp.StatusCode != 404 || decode(t, b).Error.Code != -32601 || string(decode(t, b).ID) != "2" {
		t.Errorf("unknown method: %d %s", resp.StatusCode, b)
	}
	if resp, b := e.post(testkit.Notification("notifications/cancelled", map[string]any{"requestId": 99}), nil); resp.StatusCode != 202 || len(b) != 0 {
		t.Errorf("notification: %d %s", resp.StatusCode, b)
	}
	if resp, b := e.post([]byte(`{"jsonrpc":"2.0","id":1,`), nil); resp.StatusCode != 400 || decode(t, b).Error.Code != -32700 {
		t.Errorf("a body that is not JSON: %d %s", resp.StatusCode, b)
	}
}

func TestNotificationsBeforeTheResponseMakeAnEventStream(t *testing.T) {
	e := startBridge(t, false, "snodo")
	params := map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "tok", mcp.MetaLogLevel: "info"}}
	body, h := request2026(7, "tools/call", params)
	resp, b := e.post(body, h)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var methods []string
	for _, ev := range events(b) {
		r := decode(t, ev)
		methods = append(methods, r.Method)
		if r.Method == "" && string(r.ID) != "7" {
			t.Errorf("response id %s, want 7", r.ID)
		}
	}
	if strings.Join(methods, ",") != "notifications/progress,notifications/progress,notifications/message," {
		t.Errorf("events %q", methods)
	}
}

// Clients may choose the same ids; the bridge's own ids keep them apart.
func TestConcurrentRequestsWithTheSameID(t *testing.T) {
	e := startBridge(t, false, "snodo")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprintf("text-%d", i)
			body, h := request2026(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": want}})
			req, _ := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(body))
			req.Header = h
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := e.client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), `"text":"`+want+`"`) || !strings.Contains(string(b), `"id":1`) {
				errs <- fmt.Errorf("request %d got %s", i, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTheLibrarysHeaderRulesApply(t *testing.T) {
	e := startBridge(t, false, "snodo")
	call := map[string]any{"name": "region", "arguments": map[string]any{"region": "Hello"}}
	for _, tc := range []struct {
		name   string
		edit   func(http.Header)
		status int
	}{
		{"all headers right", func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVsbG8=?=") }, 200},
		{"Mcp-Method mismatch", func(h http.Header) { h.Set("Mcp-Param-Region", "Hello"); h.Set("Mcp-Method", "TOOLS/CALL") }, 400},
		{"Mcp-Name missing", func(h http.Header) { h.Set("Mcp-Param-Region", "Hello"); h.Del("Mcp-Name") }, 400},
		{"version header unlike _meta", func(h http.Header) { h.Set("Mcp-Param-Region", "Hello"); h.Set("MCP-Protocol-Version", "2025-11-25") }, 400},
		{"Mcp-Param missing", func(http.Header) {}, 400},
		{"Mcp-Param bad base64", func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVsbG8?=") }, 400},
	} {
		body, h := request2026(3, "tools/call", call)
		tc.edit(h)
		resp, b := e.post(body, h)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, b, tc.status)
		}
		if tc.status == 400 && decode(t, b).Error.Code != -32020 {
			t.Errorf("%s: %s, want -32020", tc.name, b)
		}
	}
}

func TestOriginMethodsAndMediaTypes(t *testing.T) {
	e := startBridge(t, false, "snodo")
	body, h := request2026(1, "tools/list", nil)
	h.Set("Origin", "http://evil.example.com")
	if resp, _ := e.post(body, h); resp.StatusCode != 403 {
		t.Errorf("foreign Origin: %d", resp.StatusCode)
	}
	h.Set("Origin", "http://localhost:1234")
	if resp, b := e.post(body, h); resp.StatusCode != 200 {
		t.Errorf("loopback Origin: %d %s", resp.StatusCode, b)
	}
	resp := e.do(context.Background(), http.MethodGet, nil, nil)
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if resp, _ := e.post(body, http.Header{"Content-Type": {"text/plain"}}); resp.StatusCode != 415 {
		t.Errorf("text/plain body: %d", resp.StatusCode)
	}
	if resp, _ := e.post(body, http.Header{"Accept": {"application/json"}}); resp.StatusCode != 406 {
		t.Errorf("Accept without event streams: %d", resp.StatusCode)
	}
}

// A client that goes away has its request cancelled in the stdio server.
func TestDisconnectCancelsTheRequest(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "cancel.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv(cancelSocketEnv, sock)
	e := startBridge(t, false, "snodo")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		body, h := request2026(1, "tools/call", map[string]any{"name": "block"})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
		req.Header = h
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if resp, err := e.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if got, err := awaitWord(ln, testkit.DefaultTimeout); err != nil || got != "started" {
		t.Fatalf("the call did not start: %q %v", got, err)
	}
	cancel()
	<-done
	got, err := awaitWord(ln, testkit.DefaultTimeout)
	if err != nil || got != "cancelled" {
		t.Fatalf("the stdio server did not see the cancellation: %q %v", got, err)
	}
}

// readEvent reads the next event's data from an event stream.
func readEvent(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream ended: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			return []byte(data)
		}
	}
}

func TestSessions(t *testing.T) {
	e := startBridge(t, true, "session")
	initialize := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp, _ := e.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil); resp.StatusCode != 400 {
		t.Errorf("a request outside any session: %d", resp.StatusCode)
	}
	if resp, _ := e.post(initialize, http.Header{"Origin": {"http://evil.example.com"}}); resp.StatusCode != 403 {
		t.Errorf("foreign Origin: %d", resp.StatusCode)
	}
	if resp, _ := e.post(initialize, http.Header{"Content-Type": {"text/plain"}}); resp.StatusCode != 415 {
		t.Errorf("text/plain body: %d", resp.StatusCode)
	}
	if resp, _ := e.post(initialize, http.Header{"Accept": {"application/json"}}); resp.StatusCode != 406 {
		t.Errorf("Accept without event streams: %d", resp.StatusCode)
	}
	put := e.do(context.Background(), http.MethodPut, nil, nil)
	put.Body.Close()
	if put.StatusCode != 405 || put.Header.Get("Allow") != "GET, POST, DELETE" {
		t.Errorf("PUT: %d Allow %q", put.StatusCode, put.Header.Get("Allow"))
	}
	resp, b := e.post(initialize, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || !strings.Contains(string(b), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, b)
	}
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", sid)
		}
	}
	session := http.Header{"Mcp-Session-Id": {sid}}
	if resp, _ := e.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.Header{"Mcp-Session-Id": {"nope"}}); resp.StatusCode != 404 {
		t.Errorf("unknown session: %d", resp.StatusCode)
	}

	// A message that belongs to no request goes to the GET stream.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get := e.do(ctx, http.MethodGet, nil, session)
	defer get.Body.Close()
	if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", get.StatusCode, get.Header.Get("Content-Type"))
	}
	if resp, _ := e.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), session); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	if ev := decode(t, readEvent(t, bufio.NewReader(get.Body))); ev.Method != "notifications/message" {
		t.Errorf("GET stream event: %+v", ev)
	}

	// A server-to-client request travels on the stream of the call.
	call := e.do(context.Background(), http.MethodPost, []byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask"}}`), session)
	defer call.Body.Close()
	stream := bufio.NewReader(call.Body)
	ask := decode(t, readEvent(t, stream))
	if ask.Method != "sampling/createMessage" || len(ask.ID) == 0 {
		t.Fatalf("first event %+v, want a sampling request", ask)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","model":"m1","content":{"type":"text","text":"hi"}}}`, ask.ID)
	if resp, _ := e.post([]byte(answer), session); resp.StatusCode != 202 {
		t.Fatalf("the client's response: %d", resp.StatusCode)
	}
	final := decode(t, readEvent(t, stream))
	if string(final.ID) != `"c1"` || !strings.Contains(string(final.Result), "model m1") {
		t.Fatalf("final event %+v (%s)", final, final.Result)
	}

	del := e.do(context.Background(), http.MethodDelete, nil, session)
	del.Body.Close()
	if del.StatusCode != 200 {
		t.Errorf("DELETE: %d", del.StatusCode)
	}
	if resp, _ := e.post([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), session); resp.StatusCode != 404 {
		t.Errorf("after DELETE: %d", resp.StatusCode)
	}
}

// The command exits 0 when its input closes, having stopped its servers.
func TestRunExitsWhenInputCloses(t *testing.T) {
	t.Setenv(childEnv, "snodo")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- run(context.Background(), []string{"--", os.Args[0]}, inR, outW, testWriter{t})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	line, err := lines.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Ready bool   `json:"conformanceReady"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal([]byte(line), &ready); err != nil || !ready.Ready || !strings.HasPrefix(ready.URL, "http://127.0.0.1:") {
		t.Fatalf("ready line %q", line)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	e := &env{t: t, url: ready.URL, client: client}
	body, h := request2026(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	if resp, b := e.post(body, h); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	inW.Close()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the bridge did not exit when its input closed")
	}
	_, _ = io.Copy(io.Discard, lines)
}

func TestRunRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{{}, {"-addr", "0.0.0.0:0", "--", "x"}, {"-bogus"}} {
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
