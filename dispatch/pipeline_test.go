package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newRuntime(t *testing.T, logs *logBuffer, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	var w = &logBuffer{}
	if logs != nil {
		w = logs
	}
	base := []dispatch.Option{
		dispatch.WithLogger(slog.New(slog.NewTextHandler(w, nil))),
		dispatch.WithInstructions("Test server."),
		dispatch.WithTool(mcp.Tool{
			Name: "echo", Description: "echo",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(a.Text), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "fails"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("the backend is down")
		}),
		dispatch.WithTool(mcp.Tool{Name: "refuses"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, wrapped(&jsonrpc.Error{Code: -31000, Message: "quota exceeded"})
		}),
		dispatch.WithTool(mcp.Tool{Name: "panics"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("secret internal detail")
		}),
		dispatch.WithTool(mcp.Tool{Name: "info"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			info := dispatch.RequestInfoFromContext(ctx)
			if info == nil || info != req.Info {
				return nil, errors.New("no request info in context")
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{
				"id": info.ID.String(), "version": info.ProtocolVersion, "token": info.ProgressToken.String(),
				"client": info.ClientInfo.Name, "level": info.LogLevel,
			}, Content: []mcp.Content{mcp.Text("ok")}}, nil
		}),
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "test-server", Version: "1.2.3", Title: "Test"}, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func wrapped(err error) error { return errors.Join(errors.New("wrapped"), err) }

func result(t *testing.T, f *testkit.Frame) map[string]any {
	t.Helper()
	if f == nil || f.Error != nil {
		t.Fatalf("want a result, got %s", frameText(f))
	}
	var m map[string]any
	if err := json.Unmarshal(f.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func frameText(f *testkit.Frame) string {
	if f == nil {
		return "<no frame>"
	}
	return string(f.Raw)
}

func wantError(t *testing.T, f *testkit.Frame, code int64, id string) *testkit.FrameError {
	t.Helper()
	if f == nil || f.Error == nil || f.Error.Code != code {
		t.Fatalf("want error %d, got %s", code, frameText(f))
	}
	if string(f.ID) != id {
		t.Fatalf("error id = %s, want %s", f.ID, id)
	}
	return f.Error
}

func TestDiscover(t *testing.T) {
	rt := newRuntime(t, nil)
	r := result(t, testfixture.Dispatch(t, rt, testkit.Request(1, "server/discover", nil)))
	if r["resultType"] != "complete" || r["ttlMs"] != float64(0) || r["cacheScope"] != "private" || r["instructions"] != "Test server." {
		t.Fatalf("discover: %v", r)
	}
	if v := r["supportedVersions"].([]any); len(v) != 3 || v[0] != "2026-07-28" || v[1] != "2025-11-25" || v[2] != "2025-06-18" {
		t.Fatalf("supportedVersions: %v", v)
	}
	if _, ok := r["capabilities"].(map[string]any)["tools"]; !ok {
		t.Fatalf("capabilities lack tools: %v", r["capabilities"])
	}
	si := r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if si["name"] != "test-server" || si["version"] != "1.2.3" || si["title"] != "Test" {
		t.Fatalf("serverInfo: %v", si)
	}
}

func TestToolsListIsSortedAndPassesSchemasThrough(t *testing.T) {
	rt := newRuntime(t, nil)
	f := testfixture.Dispatch(t, rt, testkit.Request("a", "tools/list", nil))
	r := result(t, f)
	tools := r["tools"].([]any)
	var names []string
	for _, x := range tools {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "echo,fails,info,panics,refuses" {
		t.Fatalf("names = %v", names)
	}
	if !strings.Contains(string(f.Raw), `"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}`) {
		t.Fatalf("schema not passed through byte for byte: %s", f.Raw)
	}
	if !strings.Contains(string(f.Raw), `{"name":"fails","inputSchema":{"type":"object"}}`) {
		t.Fatalf("default input schema missing: %s", f.Raw)
	}
}

func TestToolCallOutcomes(t *testing.T) {
	logs := &logBuffer{}
	rt := newRuntime(t, logs)
	call := func(id int, name string, args any) *testkit.Frame {
		p := map[string]any{"name": name}
		if args != nil {
			p["arguments"] = args
		}
		return testfixture.Dispatch(t, rt, testkit.Request(id, "tools/call", p))
	}
	r := result(t, call(1, "echo", map[string]any{"text": "hi"}))
	if r["resultType"] != "complete" || r["content"].([]any)[0].(map[string]any)["text"] != "hi" || r["isError"] != nil {
		t.Fatalf("echo: %v", r)
	}
	// A handler error is an isError result the model can read.
	r = result(t, call(2, "fails", nil))
	if r["isError"] != true || r["content"].([]any)[0].(map[string]any)["text"] != "the backend is down" {
		t.Fatalf("fails: %v", r)
	}
	// A *jsonrpc.Error (even wrapped) chooses the JSON-RPC error.
	if e := wantError(t, call(3, "refuses", nil), -31000, "3"); e.Message != "quota exceeded" {
		t.Fatalf("refuses: %+v", e)
	}
	// An unknown tool is -32602.
	wantError(t, call(4, "nope", nil), jsonrpc.CodeInvalidParams, "4")
	// A panic is -32603 for that request only: no detail reaches the client,
	// the log has the panic and its stack, and the next call works.
	f := call(5, "panics", nil)
	if e := wantError(t, f, jsonrpc.CodeInternalError, "5"); strings.Contains(string(f.Raw), "secret") || e.Message != "Internal error" {
		t.Fatalf("panic leaked: %s", f.Raw)
	}
	if l := logs.String(); !strings.Contains(l, "secret internal detail") || !strings.Contains(l, "goroutine") {
		t.Fatalf("panic not logged with its stack: %s", l)
	}
	result(t, call(6, "echo", map[string]any{"text": "still fine"}))
	// Arguments must be an object.
	wantError(t, call(7, "echo", []any{1}), jsonrpc.CodeInvalidParams, "7")
	wantError(t, testfixture.Dispatch(t, rt, testkit.Request(8, "tools/call", map[string]any{"arguments": map[string]any{}})), jsonrpc.CodeInvalidParams, "8")
}

func TestRequestInfoReachesHandlers(t *testing.T) {
	rt := newRuntime(t, nil)
	f := testfixture.Dispatch(t, rt, testkit.Request(int64(9223372036854775807), "tools/call", map[string]any{
		"name": "info",
		"_meta": map[string]any{
			"progressToken":                    "tok-1",
			"io.modelcontextprotocol/logLevel": "warning",
		},
	}))
	sc := result(t, f)["structuredContent"].(map[string]any)
	want := map[string]any{"id": "9223372036854775807", "version": "2026-07-28", "token": `"tok-1"`, "client": "snodo-testkit", "level": "warning"}
	for k, v := range want {
		if sc[k] != v {
			t.Fatalf("%s = %v, want %v (all: %v)", k, sc[k], v, sc)
		}
	}
	if !bytes.HasPrefix(f.Raw, []byte(`{"jsonrpc":"2.0","id":9223372036854775807,`)) {
		t.Fatalf("int64 id not round-tripped: %s", f.Raw)
	}
}

func TestMetaAdmission(t *testing.T) {
	// Only 2026-07-28 enabled: where an initialize-era revision is too, a
	// request whose _meta names no version is one of that era's
	// (TestUnversionedMessages).
	rt := newRuntime(t, nil, dispatch.WithProtocolVersions(mcp.Version20260728))
	raw := func(params string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":` + params + `}`)
	}
	const caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	const ver = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	for _, tc := range []struct {
		name, params string
		code         int64
	}{
		{"no _meta", `{}`, jsonrpc.CodeInvalidParams},
		{"_meta not an object", `{"_meta":[]}`, jsonrpc.CodeInvalidParams},
		{"no protocol version", `{"_meta":{` + caps + `}}`, jsonrpc.CodeInvalidParams},
		{"protocol version not a string", `{"_meta":{"io.modelcontextprotocol/protocolVersion":2026,` + caps + `}}`, jsonrpc.CodeInvalidParams},
		{"no client capabilities", `{"_meta":{` + ver + `}}`, jsonrpc.CodeInvalidParams},
		{"capabilities not an object", `{"_meta":{` + ver + `,"io.modelcontextprotocol/clientCapabilities":true}}`, jsonrpc.CodeInvalidParams},
		{"malformed elicitation capability", `{"_meta":{` + ver + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":1}}}`, jsonrpc.CodeInvalidParams},
		{"clientInfo without version", `{"_meta":{` + ver + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"x"}}}`, jsonrpc.CodeInvalidParams},
		{"unknown log level", `{"_meta":{` + ver + `,` + caps + `,"io.modelcontextprotocol/logLevel":"loud"}}`, jsonrpc.CodeInvalidParams},
		{"unsupported version", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0",` + caps + `}}`, mcp.CodeUnsupportedProtocolVersion},
		{"known but disabled version", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18",` + caps + `}}`, mcp.CodeUnsupportedProtocolVersion},
		{"complete", `{"_meta":{` + ver + `,` + caps + `}}`, 0},
		{"clientInfo is optional", `{"_meta":{` + ver + `,` + caps + `}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := testfixture.Dispatch(t, rt, raw(tc.params))
			if tc.code == 0 {
				result(t, f)
				return
			}
			e := wantError(t, f, tc.code, "1")
			if tc.code == mcp.CodeUnsupportedProtocolVersion {
				var data struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				}
				if err := json.Unmarshal(e.Data, &data); err != nil || !slices.Equal(data.Supported, rt.ProtocolVersions()) || data.Requested == "" {
					t.Fatalf("-32022 data: %s (%v)", e.Data, err)
				}
			}
		})
	}
}

func TestProgressTokenBounds(t *testing.T) {
	rt := newRuntime(t, nil)
	for _, tc := range []struct {
		token any
		ok    bool
	}{
		{strings.Repeat("t", 256), true},
		{strings.Repeat("t", 257), false},
		{json.Number("9223372036854775807"), true},
		{json.Number("9223372036854775808"), false},
		{json.Number("1.5"), false},
		{true, false},
	} {
		f := testfixture.Dispatch(t, rt, testkit.Request(1, "tools/call", map[string]any{
			"name": "info", "_meta": map[string]any{"progressToken": tc.token},
		}))
		if tc.ok {
			result(t, f)
		} else {
			wantError(t, f, jsonrpc.CodeInvalidParams, "1")
		}
	}
}

func TestRemovedAndUnknownMethods(t *testing.T) {
	rt := newRuntime(t, nil)
	for i, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "no/such/method"} {
		id := string(rune('1' + i))
		e := wantError(t, testfixture.Dispatch(t, rt, testkit.Request(i+1, m, nil)), jsonrpc.CodeMethodNotFound, id)
		if !strings.Contains(string(e.Data), `"supported":["2026-07-28","2025-11-25","2025-06-18"]`) {
			t.Fatalf("%s: -32601 data should name the supported versions: %s", m, e.Data)
		}
	}
	// On a server without the initialize-era revisions, a legacy client's
	// initialize (no _meta) is told what is supported.
	modern := newRuntime(t, nil, dispatch.WithProtocolVersions(mcp.Version20260728))
	f := testfixture.Dispatch(t, modern, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`))
	if e := wantError(t, f, jsonrpc.CodeMethodNotFound, "0"); !strings.Contains(string(e.Data), `"supported":["2026-07-28"]`) {
		t.Fatalf("-32601 data should name the supported versions: %s", e.Data)
	}
	// Without tools, the tools methods do not exist.
	bare, err := dispatch.New(mcp.Implementation{Name: "bare", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, testfixture.Dispatch(t, bare, testkit.Request(1, "tools/list", nil)), jsonrpc.CodeMethodNotFound, "1")
	r := result(t, testfixture.Dispatch(t, bare, testkit.Request(2, "server/discover", nil)))
	if caps := r["capabilities"].(map[string]any); len(caps) != 0 {
		t.Fatalf("bare server advertises %v", caps)
	}
}

func TestNotificationsAndResponsesGetNothing(t *testing.T) {
	rt := newRuntime(t, nil)
	for _, raw := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"1.0","method":"broken"}`,
	} {
		if f := testfixture.Dispatch(t, rt, []byte(raw)); f != nil {
			t.Fatalf("%s was answered: %s", raw, f.Raw)
		}
	}
}

func TestHTTPHeadersAreCheckedAgainstTheBody(t *testing.T) {
	rt := newRuntime(t, nil)
	base := func() map[string][]string {
		return map[string][]string{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	}
	raw := testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	for _, tc := range []struct {
		name   string
		mutate func(h map[string][]string)
		code   int64
	}{
		{"all present", func(map[string][]string) {}, 0},
		{"surrounding whitespace", func(h map[string][]string) { h["Mcp-Name"] = []string{"  echo "} }, 0},
		{"base64 name", func(h map[string][]string) { h["Mcp-Name"] = []string{"=?base64?ZWNobw==?="} }, 0},
		{"bad base64 name", func(h map[string][]string) { h["Mcp-Name"] = []string{"=?base64?ZWNobw?="} }, mcp.CodeHeaderMismatch},
		{"missing version", func(h map[string][]string) { delete(h, "Mcp-Protocol-Version") }, mcp.CodeHeaderMismatch},
		{"version mismatch", func(h map[string][]string) { h["Mcp-Protocol-Version"] = []string{"2025-11-25"} }, mcp.CodeHeaderMismatch},
		{"missing method", func(h map[string][]string) { delete(h, "Mcp-Method") }, mcp.CodeHeaderMismatch},
		{"method case differs", func(h map[string][]string) { h["Mcp-Method"] = []string{"TOOLS/CALL"} }, mcp.CodeHeaderMismatch},
		{"repeated method", func(h map[string][]string) { h["Mcp-Method"] = []string{"tools/call", "tools/call"} }, mcp.CodeHeaderMismatch},
		{"missing name", func(h map[string][]string) { delete(h, "Mcp-Name") }, mcp.CodeHeaderMismatch},
		{"name mismatch", func(h map[string][]string) { h["Mcp-Name"] = []string{"other"} }, mcp.CodeHeaderMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := base()
			tc.mutate(h)
			f := testfixture.DispatchRequest(t, rt, raw, func(r *dispatch.Request) { r.Transport, r.Header = dispatch.TransportHTTP, h })
			if tc.code == 0 {
				result(t, f)
			} else {
				wantError(t, f, tc.code, "1")
			}
		})
	}
}

func TestConstructionErrors(t *testing.T) {
	info := mcp.Implementation{Name: "x", Version: "1"}
	noop := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		info mcp.Implementation
		opts []dispatch.Option
	}{
		{"no name", mcp.Implementation{Version: "1"}, nil},
		{"no version", mcp.Implementation{Name: "x"}, nil},
		{"unknown protocol version", info, []dispatch.Option{dispatch.WithProtocolVersions("1999-01-01")}},
		{"repeated protocol version", info, []dispatch.Option{dispatch.WithProtocolVersions("2026-07-28", "2026-07-28")}},
		{"no protocol version", info, []dispatch.Option{dispatch.WithProtocolVersions()}},
		{"empty tool name", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{}, noop)}},
		{"65-character tool name", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: strings.Repeat("a", 65)}, noop)}},
		{"tool name with a space", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: "a b"}, noop)}},
		{"duplicate tool", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: "a"}, noop), dispatch.WithTool(mcp.Tool{Name: "a"}, noop)}},
		{"nil handler", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: "a"}, nil)}},
		{"schema not JSON", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: "a", InputSchema: json.RawMessage(`{`)}, noop)}},
		{"schema not an object", info, []dispatch.Option{dispatch.WithTool(mcp.Tool{Name: "a", InputSchema: json.RawMessage(`[]`)}, noop)}},
		{"nil logger", info, []dispatch.Option{dispatch.WithLogger(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := dispatch.New(tc.info, tc.opts...); err == nil {
				t.Fatal("New accepted an invalid configuration")
			}
		})
	}
	if _, err := dispatch.New(info, dispatch.WithTool(mcp.Tool{Name: strings.Repeat("a", 64)[:64]}, noop), dispatch.WithTool(mcp.Tool{Name: "A-z_0.9/x"}, noop)); err != nil {
		t.Fatalf("valid names refused: %v", err)
	}
}

// A transport may reuse its Request once Admit has returned: a call
// admitted from it runs as admitted after the Request is overwritten
// with the next message.
func TestAdmitKeepsNoReferenceToTheRequest(t *testing.T) {
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult(r.Name + " " + string(r.Arguments)), nil
	}), dispatch.WithTool(mcp.Tool{Name: "other"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("other"), nil
	}))
	decode := func(raw []byte) *jsonrpc.Message {
		t.Helper()
		msg, err := jsonrpc.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	var req dispatch.Request
	req = dispatch.Request{Message: decode(testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"n": 1}}))}
	call, out := rt.Admit(&req)
	if call == nil {
		t.Fatalf("not admitted: %s", out.Frame)
	}
	req = dispatch.Request{Message: decode(testkit.Request(2, "tools/call", map[string]any{"name": "other", "arguments": map[string]any{"longer": "arguments than the first"}}))}
	if _, out := rt.Admit(&req); out.Frame != nil {
		t.Fatalf("the second message was refused: %s", out.Frame)
	}
	raw := rt.Execute(context.Background(), call).Frame
	f := &testkit.Frame{Raw: raw}
	if err := json.Unmarshal(raw, f); err != nil {
		t.Fatal(err)
	}
	text, isErr := toolText(t, f)
	if isErr || text != `echo {"n":1}` || string(f.ID) != "1" {
		t.Fatalf("the first call ran as %q (isError %v, id %s), want echo of its own arguments", text, isErr, f.ID)
	}
}
