package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// Tests of the initialize-era dialects (2025-11-25, 2025-06-18). Every
// frame is validated against the official schema of the revision the
// client negotiated.

var legacyVersions = []string{mcp.Version20251125, mcp.Version20250618}

var icon = []mcp.Icon{{Src: "https://example.com/i.png", MIMEType: "image/png"}}

// legacyRuntime has one component of each kind with icons, a tool whose
// output schema is not object-rooted, a tool that logs, and one that asks
// for input.
func legacyRuntime(t *testing.T, logs *logBuffer, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	if logs == nil {
		logs = &logBuffer{}
	}
	size := int64(5)
	base := []dispatch.Option{
		dispatch.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		dispatch.WithInstructions("Legacy test server."),
		dispatch.WithClientLogging(),
		dispatch.WithTool(mcp.Tool{Name: "echo", Description: "echo", Icons: icon},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Content: []mcp.Content{
						mcp.Text(string(req.Arguments)),
						&mcp.ResourceLink{URI: "test://static", Name: "static", Icons: icon},
					},
					StructuredContent: map[string]any{"args": json.RawMessage(req.Arguments)},
					Result:            mcp.Result{Meta: map[string]any{"com.example/trace": "t1"}},
				}, nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "list_numbers", Description: "array output",
			OutputSchema: json.RawMessage(`{"type":"array","items":{"type":"integer"}}`)},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("[1,2]")}, StructuredContent: []int{1, 2}}, nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "untyped_array", Description: "structured array without an output schema"},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("[3]")}, StructuredContent: []int{3}}, nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "chatty", Description: "logs and reports progress"},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				log := dispatch.ClientLogger(ctx)
				log.Debug("debug detail")
				log.Info("working", "step", 1)
				log.Warn("careful")
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2}); err != nil {
					return nil, err
				}
				return mcp.TextResult("done"), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "ask", Description: "asks the user"},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"who": mcp.ElicitForm("Who are you?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
				}}
			}),
		dispatch.WithResource(mcp.Resource{URI: "test://static", Name: "static", Size: &size, Icons: icon},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "hello")}}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", Icons: icon},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return nil, dispatch.ErrResourceNotFound
			}),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet", Description: "greets", Icons: icon,
			Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "greeting", Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Text("hello " + req.Arguments["who"])},
					{Role: mcp.RoleUser, Content: &mcp.ResourceLink{URI: "test://static", Name: "static", Icons: icon}},
				}}, nil
			}, dispatch.WithCompletion("who", func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) {
				return &mcp.Completion{Values: []string{"world"}}, nil
			})),
	}
	rt, err := dispatch.New(mcp.Implementation{
		Name: "legacy-server", Title: "Legacy", Version: "2.0.0",
		Description: "a server", WebsiteURL: "https://example.com", Icons: icon,
	}, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// legacyClient is an initialize-era client of one revision on one
// session, as a stdio connection would serve it.
type legacyClient struct {
	t       *testing.T
	rt      *dispatch.Runtime
	version string
	sess    *dispatch.Session
	header  map[string][]string // HTTP headers, when set
	nextID  int
}

func (c *legacyClient) setup(notifier dispatch.Notifier) func(*dispatch.Request) {
	return func(r *dispatch.Request) {
		r.Session, r.Notifier, r.Header = c.sess, notifier, c.header
		r.Transport = dispatch.TransportStdio
		if c.header != nil {
			r.Transport = dispatch.TransportHTTP
		}
	}
}

// call sends one request on the session and returns the response,
// validated against the client's revision.
func (c *legacyClient) call(method string, params map[string]any) *testkit.Frame {
	c.t.Helper()
	return c.callWith(method, params, nil)
}

func (c *legacyClient) callWith(method string, params map[string]any, notifier dispatch.Notifier) *testkit.Frame {
	c.t.Helper()
	c.nextID++
	f := testfixture.DispatchVersion(c.t, c.rt, c.version, testfixture.LegacyRequest(c.nextID, method, params), c.setup(notifier))
	if f == nil {
		c.t.Fatalf("%s: no response", method)
	}
	return f
}

// notify sends a client notification on the session.
func (c *legacyClient) notify(method string) {
	c.t.Helper()
	msg, err := jsonrpc.Decode(testkit.Notification(method, nil))
	if err != nil {
		c.t.Fatal(err)
	}
	req := &dispatch.Request{Message: msg}
	c.setup(nil)(req)
	if call, out := c.rt.Admit(req); call != nil || out.Frame != nil {
		c.t.Fatalf("a notification was answered: %s", out.Frame)
	}
}

// initialize performs the handshake asking for version and returns the
// client and the initialize result.
func initialize(t *testing.T, rt *dispatch.Runtime, version string, caps map[string]any) (*legacyClient, map[string]any) {
	t.Helper()
	c := &legacyClient{t: t, rt: rt, sess: dispatch.NewSession()}
	msg, err := jsonrpc.Decode(testfixture.LegacyRequest(0, "initialize", map[string]any{
		"protocolVersion": version, "capabilities": caps,
		"clientInfo": map[string]any{"name": "old-client", "version": "0.9"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	out := rt.Dispatch(context.Background(), &dispatch.Request{Message: msg, Session: c.sess, Transport: dispatch.TransportStdio})
	if out.ErrorCode != 0 {
		t.Fatalf("initialize failed: %s", out.Frame)
	}
	c.version = out.NegotiatedVersion
	if c.version == "" || c.sess.ProtocolVersion() != c.version {
		t.Fatalf("negotiated %q, session has %q", c.version, c.sess.ProtocolVersion())
	}
	if err := testkit.ValidateFrame(c.version, out.Frame, "initialize"); err != nil {
		t.Fatalf("initialize result fails the %s schema: %v\n%s", c.version, err, out.Frame)
	}
	var resp struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(out.Frame, &resp); err != nil {
		t.Fatal(err)
	}
	return c, resp.Result
}

func TestInitializeNegotiation(t *testing.T) {
	rt := legacyRuntime(t, nil)
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2024-11-05", "2025-11-25"}, // not enabled: our preferred initialize-era version
		{"2026-07-28", "2025-11-25"}, // not an initialize-era version
	} {
		c, r := initialize(t, rt, tc.asked, map[string]any{"sampling": map[string]any{}})
		if r["protocolVersion"] != tc.want || c.version != tc.want {
			t.Fatalf("asked %s: negotiated %v", tc.asked, r["protocolVersion"])
		}
		if c.sess.ClientCapabilities().Sampling == nil || c.sess.ClientInfo().Name != "old-client" || c.sess.Initialized() {
			t.Fatalf("asked %s: session state %+v %+v %v", tc.asked, c.sess.ClientCapabilities(), c.sess.ClientInfo(), c.sess.Initialized())
		}
		if r["instructions"] != "Legacy test server." {
			t.Fatalf("instructions = %v", r["instructions"])
		}
		for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
			if _, ok := r[k]; ok {
				t.Fatalf("%s: initialize result has %s", tc.want, k)
			}
		}
		caps := r["capabilities"].(map[string]any)
		for _, k := range []string{"tools", "prompts", "resources", "completions", "logging"} {
			if _, ok := caps[k]; !ok {
				t.Fatalf("%s: capabilities lack %s: %v", tc.want, k, caps)
			}
		}
		si := r["serverInfo"].(map[string]any)
		if si["name"] != "legacy-server" || si["version"] != "2.0.0" || si["title"] != "Legacy" {
			t.Fatalf("serverInfo = %v", si)
		}
		_, hasIcons := si["icons"]
		_, hasSite := si["websiteUrl"]
		_, hasDesc := si["description"]
		if old := tc.want == "2025-06-18"; hasIcons == old || hasSite == old || hasDesc == old {
			t.Fatalf("%s serverInfo = %v", tc.want, si)
		}
	}

	// The preference order of the enabled versions decides the offer.
	only := legacyRuntime(t, nil, dispatch.WithProtocolVersions(mcp.Version20260728, mcp.Version20250618))
	if _, r := initialize(t, only, "2025-11-25", map[string]any{}); r["protocolVersion"] != "2025-06-18" {
		t.Fatalf("offered %v with only 2025-06-18 enabled", r["protocolVersion"])
	}
}

func TestInitializeAdmission(t *testing.T) {
	rt := legacyRuntime(t, nil)
	c, _ := initialize(t, rt, "2025-11-25", map[string]any{})
	// A second initialize on the same session is refused, and changes
	// nothing.
	f := testfixture.DispatchVersion(t, rt, c.version, testfixture.LegacyRequest(9, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"},
	}), c.setup(nil))
	rpcError(t, f, jsonrpc.CodeInvalidRequest)
	if c.sess.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("a refused initialize changed the session to %s", c.sess.ProtocolVersion())
	}

	for name, params := range map[string]map[string]any{
		"no params":                    nil,
		"version not a string":         {"protocolVersion": 20251125, "capabilities": map[string]any{}},
		"no capabilities":              {"protocolVersion": "2025-11-25"},
		"capabilities not an object":   {"protocolVersion": "2025-11-25", "capabilities": []any{}},
		"clientInfo without a version": {"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x"}},
	} {
		sess := dispatch.NewSession()
		f := testfixture.DispatchVersion(t, rt, "2025-11-25", testfixture.LegacyRequest(1, "initialize", params), func(r *dispatch.Request) { r.Session = sess })
		if f.Error == nil || f.Error.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%s: %s", name, f.Raw)
		}
		if sess.ProtocolVersion() != "" {
			t.Fatalf("%s: a refused initialize negotiated %s", name, sess.ProtocolVersion())
		}
	}

	// An initialize that names the stateless revision (in _meta, or in the
	// HTTP header) is that revision's: it has no initialize.
	f = testfixture.Dispatch(t, rt, testkit.Request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}))
	rpcError(t, f, jsonrpc.CodeMethodNotFound)
	f = testfixture.DispatchRequest(t, rt, testfixture.LegacyRequest(2, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}),
		func(r *dispatch.Request) {
			r.Header = map[string][]string{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"initialize"}}
		})
	rpcError(t, f, jsonrpc.CodeMethodNotFound)

	// Over HTTP the initialize POST carries no MCP-Protocol-Version, and
	// needs no Mcp-Method. Without a session nothing can keep a log level,
	// so logging is not offered.
	f = testfixture.DispatchVersion(t, rt, "2025-06-18", testfixture.LegacyRequest(3, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"},
	}), func(r *dispatch.Request) {
		r.Header = map[string][]string{"Accept": {"application/json, text/event-stream"}}
	})
	r := resultOf(t, f)
	if r["protocolVersion"] != "2025-06-18" {
		t.Fatalf("HTTP initialize: %s", f.Raw)
	}
	if _, ok := r["capabilities"].(map[string]any)["logging"]; ok {
		t.Fatalf("logging offered without a session: %s", f.Raw)
	}

	// Without the initialize-era revisions, nothing negotiates.
	modern := legacyRuntime(t, nil, dispatch.WithProtocolVersions(mcp.Version20260728))
	msg, _ := jsonrpc.Decode(testfixture.LegacyRequest(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}))
	sess := dispatch.NewSession()
	if out := modern.Dispatch(context.Background(), &dispatch.Request{Message: msg, Session: sess}); out.ErrorCode != jsonrpc.CodeMethodNotFound || out.NegotiatedVersion != "" || sess.ProtocolVersion() != "" {
		t.Fatalf("2026-only initialize: %s", out.Frame)
	}
}

func TestInitializedNotificationAndPing(t *testing.T) {
	rt := legacyRuntime(t, nil)
	// Before the handshake a session claims nothing: a ping names no
	// revision and is answered under the initialize-era rules (the
	// lifecycle allows it before the initialize response).
	early := &legacyClient{t: t, rt: rt, version: mcp.Version20251125, sess: dispatch.NewSession()}
	early.notify("notifications/initialized")
	if early.sess.Initialized() {
		t.Fatal("notifications/initialized before initialize marked the session")
	}
	if f := early.call("ping", nil); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping before the handshake: %s", f.Raw)
	}

	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{})
		c.notify("notifications/initialized")
		if !c.sess.Initialized() {
			t.Fatalf("%s: notifications/initialized was not recorded", v)
		}
		if f := c.call("ping", nil); f.Error != nil || string(f.Result) != "{}" {
			t.Fatalf("%s ping: %s", v, f.Raw)
		}
		// Methods of the stateless revision, of later work, or of nobody.
		for _, m := range []string{"server/discover", "subscriptions/listen", "tasks/list", "resources/subscribe", "no/such"} {
			rpcError(t, c.call(m, map[string]any{"uri": "test://static"}), jsonrpc.CodeMethodNotFound)
		}
	}
}

func TestLegacyListsHaveNoStatelessFields(t *testing.T) {
	logs := &logBuffer{}
	rt := legacyRuntime(t, logs)
	if n := strings.Count(logs.String(), "tool=list_numbers"); n != 1 {
		t.Fatalf("the hidden tool was logged %d times when the Runtime was built:\n%s", n, logs)
	}
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{})
		old := v == mcp.Version20250618
		for _, tc := range []struct{ method, key string }{
			{"tools/list", "tools"}, {"prompts/list", "prompts"},
			{"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"},
		} {
			r := resultOf(t, c.call(tc.method, nil))
			for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
				if _, ok := r[k]; ok {
					t.Fatalf("%s %s has %s", v, tc.method, k)
				}
			}
			items := r[tc.key].([]any)
			if len(items) == 0 {
				t.Fatalf("%s %s is empty", v, tc.method)
			}
			withIcons := 0
			for _, it := range items {
				if _, has := it.(map[string]any)["icons"]; has {
					withIcons++
				}
			}
			if (withIcons == 0) != old {
				t.Fatalf("%s %s: %d items with icons", v, tc.method, withIcons)
			}
			if tc.method == "tools/list" {
				if got := names(items, "name"); strings.Join(got, ",") != "ask,chatty,echo,untyped_array" {
					t.Fatalf("%s tools = %v (list_numbers has an array output schema)", v, got)
				}
			}
		}
		e := rpcError(t, c.call("tools/call", map[string]any{"name": "list_numbers"}), jsonrpc.CodeInvalidParams)
		if !strings.Contains(e.Message, "list_numbers") {
			t.Fatalf("hidden tool refusal: %+v", e)
		}
	}
	// The stateless revision lists the tool the others cannot carry.
	if got := names(resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any), "name"); len(got) != 5 {
		t.Fatalf("2026-07-28 tools = %v", got)
	}
}

func TestLegacyToolResults(t *testing.T) {
	rt := legacyRuntime(t, nil)
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{})
		r := resultOf(t, c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"a": 1}}))
		if _, ok := r["resultType"]; ok {
			t.Fatalf("%s tools/call has resultType", v)
		}
		if m := r["_meta"].(map[string]any); len(m) != 1 || m["com.example/trace"] != "t1" {
			t.Fatalf("%s _meta = %v (no serverInfo, the handler's keys kept)", v, m)
		}
		if s := r["structuredContent"].(map[string]any); s["args"].(map[string]any)["a"] != float64(1) {
			t.Fatalf("%s structuredContent = %v", v, s)
		}
		link := r["content"].([]any)[1].(map[string]any)
		if _, has := link["icons"]; has == (v == mcp.Version20250618) {
			t.Fatalf("%s resource link = %v", v, link)
		}
		// A structured value that is not an object has no place in these
		// revisions; the text block still carries it.
		r = resultOf(t, c.call("tools/call", map[string]any{"name": "untyped_array"}))
		if _, ok := r["structuredContent"]; ok {
			t.Fatalf("%s kept a non-object structuredContent: %v", v, r)
		}
		if text, _ := toolText(t, c.call("tools/call", map[string]any{"name": "untyped_array"})); text != "[3]" {
			t.Fatalf("%s text = %q", v, text)
		}
	}
	// 2026-07-28 on the same Runtime still gets its own shape.
	r := resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "untyped_array"}))
	if r["resultType"] != "complete" || r["structuredContent"] == nil {
		t.Fatalf("2026-07-28 result = %v", r)
	}
}

func TestLegacyResourcesPromptsCompletion(t *testing.T) {
	rt := legacyRuntime(t, nil)
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{})
		r := resultOf(t, c.call("resources/read", map[string]any{"uri": "test://static"}))
		if len(r) != 1 || r["contents"].([]any)[0].(map[string]any)["text"] != "hello" {
			t.Fatalf("%s read = %v", v, r)
		}
		// An unknown resource is -32002 in these revisions, with the URI.
		for _, uri := range []string{"test://missing", "test://items/7"} {
			e := rpcError(t, c.call("resources/read", map[string]any{"uri": uri}), mcp.CodeResourceNotFound)
			if d := errorData(t, e); d["uri"] != uri {
				t.Fatalf("%s not-found data = %v", v, d)
			}
		}
		// Other invalid params keep their code.
		rpcError(t, c.call("resources/read", map[string]any{"uri": "relative"}), jsonrpc.CodeInvalidParams)

		r = resultOf(t, c.call("prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": "you"}}))
		if _, ok := r["_meta"]; ok || r["description"] != "greeting" {
			t.Fatalf("%s prompt = %v", v, r)
		}
		link := r["messages"].([]any)[1].(map[string]any)["content"].(map[string]any)
		if _, has := link["icons"]; has == (v == mcp.Version20250618) {
			t.Fatalf("%s prompt resource link = %v", v, link)
		}
		rpcError(t, c.call("prompts/get", map[string]any{"name": "greet"}), jsonrpc.CodeInvalidParams)

		r = resultOf(t, c.call("completion/complete", map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "who", "value": "w"},
		}))
		if len(r) != 1 || r["completion"].(map[string]any)["values"].([]any)[0] != "world" {
			t.Fatalf("%s completion = %v", v, r)
		}
	}
	// The same read on 2026-07-28 is -32602.
	rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "test://missing"}), jsonrpc.CodeInvalidParams)
}

func TestLegacyLoggingAndProgress(t *testing.T) {
	rt := legacyRuntime(t, nil)
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{})
		// No level set: no messages, but progress is sent for a token.
		rec := testfixture.NewRecorderFor(t, v)
		resultOf(t, c.callWith("tools/call", map[string]any{"name": "chatty", "_meta": map[string]any{"progressToken": "p1"}}, rec))
		ns := rec.Notifications()
		if len(ns) != 1 || ns[0].Method != "notifications/progress" || ns[0].Params["progressToken"] != "p1" {
			t.Fatalf("%s without a level: %v", v, ns)
		}
		rpcError(t, c.call("logging/setLevel", map[string]any{"level": "loud"}), jsonrpc.CodeInvalidParams)
		rpcError(t, c.call("logging/setLevel", nil), jsonrpc.CodeInvalidParams)
		if f := c.call("logging/setLevel", map[string]any{"level": "info"}); string(f.Result) != "{}" {
			t.Fatalf("%s setLevel: %s", v, f.Raw)
		}
		if c.sess.LogLevel() != "info" {
			t.Fatalf("%s session level = %q", v, c.sess.LogLevel())
		}
		rec = testfixture.NewRecorderFor(t, v)
		resultOf(t, c.callWith("tools/call", map[string]any{"name": "chatty"}, rec))
		var levels []string
		for _, n := range rec.Notifications() {
			if n.Method != "notifications/message" {
				t.Fatalf("%s: unexpected %s without a progress token", v, n.Method)
			}
			levels = append(levels, n.Params["level"].(string))
		}
		if strings.Join(levels, ",") != "info,warning" {
			t.Fatalf("%s levels at info = %v", v, levels)
		}
		// A bad progress token is refused as on 2026-07-28.
		rpcError(t, c.call("tools/call", map[string]any{"name": "chatty", "_meta": map[string]any{"progressToken": 1.5}}), jsonrpc.CodeInvalidParams)
	}
	// Without a session nothing keeps a level: setLevel does not exist.
	f := testfixture.DispatchVersion(t, rt, "2025-11-25", testfixture.LegacyRequest(1, "logging/setLevel", map[string]any{"level": "debug"}),
		func(r *dispatch.Request) { r.ProtocolVersion = "2025-11-25" })
	rpcError(t, f, jsonrpc.CodeMethodNotFound)
	// Without WithClientLogging neither.
	quiet, err := dispatch.New(testInfo, dispatch.WithTool(mcp.Tool{Name: "x"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("x"), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	c, r := initialize(t, quiet, "2025-11-25", map[string]any{})
	if _, ok := r["capabilities"].(map[string]any)["logging"]; ok {
		t.Fatalf("logging offered without WithClientLogging: %v", r)
	}
	rpcError(t, c.call("logging/setLevel", map[string]any{"level": "debug"}), jsonrpc.CodeMethodNotFound)
}

func TestLegacyHTTPAdmission(t *testing.T) {
	rt := legacyRuntime(t, nil)
	c, _ := initialize(t, rt, "2025-06-18", map[string]any{})
	// The header names the negotiated version; the stateless revision's
	// Mcp-Method and Mcp-Name mirrors are not needed.
	c.header = map[string][]string{"Mcp-Protocol-Version": {"2025-06-18"}}
	if got := names(resultOf(t, c.call("tools/list", nil))["tools"].([]any), "name"); len(got) != 4 {
		t.Fatalf("tools = %v", got)
	}
	resultOf(t, c.call("tools/call", map[string]any{"name": "echo"}))
	// Without the header, the session's negotiated version identifies the
	// request.
	c.header = map[string][]string{}
	resultOf(t, c.call("ping", nil))
	// A header naming another initialize-era version than the session's
	// is refused.
	c.header = map[string][]string{"Mcp-Protocol-Version": {"2025-11-25"}}
	rpcError(t, c.call("ping", nil), jsonrpc.CodeInvalidParams)
	// A _meta version conflicting with the header is refused.
	c.header = map[string][]string{"Mcp-Protocol-Version": {"2025-06-18"}}
	rpcError(t, c.call("tools/list", map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "2025-11-25"}}), jsonrpc.CodeInvalidParams)
	rpcError(t, c.call("tools/list", map[string]any{"_meta": "x"}), jsonrpc.CodeInvalidParams)
	// Multi round-trip members belong to 2026-07-28.
	rpcError(t, c.call("tools/call", map[string]any{"name": "echo", "inputResponses": map[string]any{}}), jsonrpc.CodeInvalidParams)
	rpcError(t, c.call("tools/call", map[string]any{"name": "echo", "requestState": "x"}), jsonrpc.CodeInvalidParams)

	// Sessions off: the header alone selects the revision.
	f := testfixture.DispatchVersion(t, rt, "2025-11-25", testfixture.LegacyRequest(1, "tools/list", nil), func(r *dispatch.Request) {
		r.Header = map[string][]string{"Mcp-Protocol-Version": {"2025-11-25"}}
	})
	if _, ok := resultOf(t, f)["ttlMs"]; ok {
		t.Fatalf("header-selected request has a stateless shape: %s", f.Raw)
	}
	// Neither header nor session: the request names no revision and is
	// served under the preferred initialize-era one.
	f = testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(1, "tools/list", nil), func(r *dispatch.Request) { r.Header = map[string][]string{} })
	if _, ok := resultOf(t, f)["tools"]; !ok {
		t.Fatalf("unversioned tools/list over HTTP: %s", f.Raw)
	}
	// A 2026-07-28 request on a legacy session is served statelessly.
	f = testfixture.DispatchRequest(t, rt, testkit.Request(5, "tools/list", nil), func(r *dispatch.Request) { r.Session = c.sess })
	if resultOf(t, f)["resultType"] != "complete" {
		t.Fatalf("2026 request on a legacy session: %s", f.Raw)
	}
}

func TestLegacyInputRequests(t *testing.T) {
	logs := &logBuffer{}
	rt := legacyRuntime(t, logs)
	// A client that cannot elicit is told which capability is missing.
	c, _ := initialize(t, rt, "2025-11-25", map[string]any{"sampling": map[string]any{}})
	e := rpcError(t, c.call("tools/call", map[string]any{"name": "ask"}), mcp.CodeMissingRequiredClientCapability)
	if d := errorData(t, e); d["requiredCapabilities"].(map[string]any)["elicitation"] == nil {
		t.Fatalf("data = %v", d)
	}
	// One that can is not sent a stateless input_required result: without
	// a channel for server-to-client requests (no notifications/initialized
	// yet), the call fails and says why.
	c, _ = initialize(t, rt, "2025-06-18", map[string]any{"elicitation": map[string]any{}})
	e = rpcError(t, c.call("tools/call", map[string]any{"name": "ask"}), jsonrpc.CodeInternalError)
	if !strings.Contains(e.Message, "notifications/initialized") {
		t.Fatalf("the failure does not say why: %q", e.Message)
	}
}

func TestSessionZeroValues(t *testing.T) {
	var s *dispatch.Session
	if s.ProtocolVersion() != "" || s.ClientInfo() != nil || s.Initialized() || s.LogLevel() != "" ||
		s.ClientCapabilities().Sampling != nil {
		t.Fatal("a nil session is not empty")
	}
	fresh := dispatch.NewSession()
	if fresh.ProtocolVersion() != "" || fresh.Initialized() {
		t.Fatal("a new session has state")
	}
}

func TestLegacyExtension(t *testing.T) {
	rt := legacyRuntime(t, nil, dispatch.WithExtension(dispatch.Extension{
		ID: "com.example/search", Versions: []string{mcp.Version20251125},
		Methods: map[string]dispatch.ExtensionHandler{"search/run": func(context.Context, *dispatch.ExtensionRequest) (any, error) {
			return map[string]any{"hits": 3}, nil
		}},
	}))
	c, r := initialize(t, rt, "2025-11-25", map[string]any{"extensions": map[string]any{"com.example/search": map[string]any{}}})
	if _, ok := r["capabilities"].(map[string]any)["extensions"]; ok {
		t.Fatalf("extensions advertised to an initialize-era client: %v", r)
	}
	if f := c.call("search/run", nil); string(f.Result) != `{"hits":3}` {
		t.Fatalf("extension on 2025-11-25: %s", f.Raw)
	}
	other, _ := initialize(t, rt, "2025-11-25", map[string]any{})
	rpcError(t, other.call("search/run", nil), mcp.CodeMissingRequiredClientCapability)
	old, _ := initialize(t, rt, "2025-06-18", map[string]any{"extensions": map[string]any{"com.example/search": map[string]any{}}})
	rpcError(t, old.call("search/run", nil), jsonrpc.CodeMethodNotFound)
}

// TestLegacyPanicsStayIsolated: the initialize-era path runs the same
// isolated operations.
func TestLegacyPanicsStayIsolated(t *testing.T) {
	logs := &logBuffer{}
	rt := legacyRuntime(t, logs, dispatch.WithTool(mcp.Tool{Name: "boom"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		panic(errors.New("kaboom"))
	}))
	c, _ := initialize(t, rt, "2025-11-25", map[string]any{})
	rpcError(t, c.call("tools/call", map[string]any{"name": "boom"}), jsonrpc.CodeInternalError)
	if !strings.Contains(logs.String(), "kaboom") {
		t.Fatal("the panic was not logged")
	}
	resultOf(t, c.call("ping", nil))
}

// answeringClient is the client side of a session in a dispatch-level
// test: every server-to-client request written through it is answered
// by answer (nil: left unanswered) through Session.Deliver, and every
// frame is validated against version's schema.
type answeringClient struct {
	t       *testing.T
	version string
	sess    *dispatch.Session
	answer  func(method string, params json.RawMessage) []byte // a whole response frame for id 0, re-ided
	rec     *testfixture.Recorder
	asked   chan string
}

func (a *answeringClient) Notify(ctx context.Context, frame []byte) error {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(frame, &head); err != nil {
		a.t.Errorf("frame: %v", err)
		return nil
	}
	if head.ID == nil {
		return a.rec.Notify(ctx, frame)
	}
	if err := testkit.ValidateFrame(a.version, frame, ""); err != nil {
		a.t.Errorf("server-to-client request fails the %s schema: %v\n%s", a.version, err, frame)
	}
	if a.asked != nil {
		a.asked <- head.Method
	}
	if resp := a.answer(head.Method, head.Params); resp != nil {
		msg, err := jsonrpc.Decode([]byte(strings.Replace(string(resp), `"id":0`, `"id":`+string(head.ID), 1)))
		if err != nil {
			a.t.Errorf("response: %v", err)
			return nil
		}
		go a.sess.Deliver(msg) // answered later, from another goroutine, as a transport would
	}
	return nil
}

func TestLegacyInputLoopAtDispatch(t *testing.T) {
	rounds := 0
	rt := legacyRuntime(t, nil, dispatch.WithTool(mcp.Tool{Name: "insatiable"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		rounds++
		return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"r": &mcp.ListRootsRequest{}}}
	}), dispatch.WithTool(mcp.Tool{Name: "ask_once"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		e, ok := req.Input.Elicitation("who")
		if !ok {
			return nil, &dispatch.InputRequired{State: []byte("kept"), Requests: map[string]mcp.InputRequest{
				"who": mcp.ElicitForm("Who?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
			}}
		}
		state, _ := req.Input.State()
		return mcp.TextResult(fmt.Sprintf("%v/%s", e.Content["name"], state)), nil
	}))
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{"elicitation": map[string]any{}, "roots": map[string]any{}})
		client := &answeringClient{t: t, version: v, sess: c.sess, rec: testfixture.NewRecorderFor(t, v), answer: func(method string, _ json.RawMessage) []byte {
			if method == "roots/list" {
				return []byte(`{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`)
			}
			return []byte(`{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"name":"Grace"}}}`)
		}}
		// Before notifications/initialized the server sends no request.
		rpcError(t, c.callWith("tools/call", map[string]any{"name": "ask_once"}, client), jsonrpc.CodeInternalError)
		c.notify("notifications/initialized")
		// The answer and the handler's state reach the second round.
		if text, isErr := toolText(t, c.callWith("tools/call", map[string]any{"name": "ask_once"}, client)); isErr || text != "Grace/kept" {
			t.Fatalf("%s: %q", v, text)
		}
		// A handler that never completes is stopped after MaxInputRounds.
		rounds = 0
		rpcError(t, c.callWith("tools/call", map[string]any{"name": "insatiable"}, client), jsonrpc.CodeInternalError)
		if rounds != dispatch.MaxInputRounds+1 {
			t.Fatalf("%s: the handler ran %d times, want %d", v, rounds, dispatch.MaxInputRounds+1)
		}
		if n := c.sess.Outstanding(); n != 0 {
			t.Fatalf("%s: %d requests still outstanding", v, n)
		}
	}
}

func TestSessionRequestsEndWithTheSession(t *testing.T) {
	rt := legacyRuntime(t, nil)
	c, _ := initialize(t, rt, "2025-11-25", map[string]any{"elicitation": map[string]any{}})
	c.notify("notifications/initialized")
	client := &answeringClient{t: t, version: c.version, sess: c.sess, rec: testfixture.NewRecorderFor(t, c.version),
		asked: make(chan string, 1), answer: func(string, json.RawMessage) []byte { return nil }}
	done := make(chan *testkit.Frame, 1)
	go func() { done <- c.callWith("tools/call", map[string]any{"name": "ask"}, client) }()
	if m := <-client.asked; m != "elicitation/create" {
		t.Fatalf("asked %s", m)
	}
	// Responses that match nothing are ignored.
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":999,"result":{}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
	} {
		msg, err := jsonrpc.Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if c.sess.Deliver(msg) {
			t.Fatalf("%s matched a request", raw)
		}
	}
	if n := c.sess.Outstanding(); n != 1 {
		t.Fatalf("outstanding = %d", n)
	}
	c.sess.Close()
	f := <-done
	rpcError(t, f, jsonrpc.CodeInternalError)
	if n := c.sess.Outstanding(); n != 0 {
		t.Fatalf("outstanding after close = %d", n)
	}
	// Later requests fail at once.
	rpcError(t, c.callWith("tools/call", map[string]any{"name": "ask"}, client), jsonrpc.CodeInternalError)
	select {
	case m := <-client.asked:
		t.Fatalf("a closed session sent %s", m)
	default:
	}
}

func TestPingClient(t *testing.T) {
	rt := legacyRuntime(t, nil, dispatch.WithTool(mcp.Tool{Name: "pinger"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		err := dispatch.PingClient(ctx)
		var ce *dispatch.ClientError
		switch {
		case err == nil:
			return mcp.TextResult("pong"), nil
		case errors.Is(err, dispatch.ErrNoClientChannel):
			return mcp.TextResult("no channel"), nil
		case errors.As(err, &ce):
			return mcp.TextResult(fmt.Sprintf("client error %d", ce.Err.Code)), nil
		}
		return nil, err
	}))
	if text, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "pinger"})); text != "no channel" {
		t.Fatalf("2026-07-28: %q", text)
	}
	c, _ := initialize(t, rt, "2025-11-25", map[string]any{})
	refuse := false
	client := &answeringClient{t: t, version: c.version, sess: c.sess, rec: testfixture.NewRecorderFor(t, c.version), asked: make(chan string, 4),
		answer: func(method string, _ json.RawMessage) []byte {
			if refuse {
				return []byte(`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"no"}}`)
			}
			return []byte(`{"jsonrpc":"2.0","id":0,"result":{}}`)
		}}
	if text, _ := toolText(t, c.callWith("tools/call", map[string]any{"name": "pinger"}, client)); text != "no channel" {
		t.Fatalf("before notifications/initialized: %q", text)
	}
	c.notify("notifications/initialized")
	if text, _ := toolText(t, c.callWith("tools/call", map[string]any{"name": "pinger"}, client)); text != "pong" {
		t.Fatalf("ping: %q", text)
	}
	if m := <-client.asked; m != "ping" {
		t.Fatalf("sent %s", m)
	}
	refuse = true
	if text, _ := toolText(t, c.callWith("tools/call", map[string]any{"name": "pinger"}, client)); text != "client error -32601" {
		t.Fatalf("refused ping: %q", text)
	}
}

// TestLegacySubscriptionsFromTheHub: an initialize-era session is fed by
// the same Hub as subscriptions/listen: list changes it was offered, and
// updates of the resources it subscribed to, pulled from the session.
func TestLegacySubscriptionsFromTheHub(t *testing.T) {
	hub := hub.New(hub.Options{})
	secret := "test://secret"
	rt := legacyRuntime(t, nil, dispatch.WithSubscriptions(hub), dispatch.WithAuthorizer(dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
		if a.URI == secret || a.Name == secret {
			return dispatch.ErrConceal
		}
		return nil
	})))
	for _, v := range legacyVersions {
		c, r := initialize(t, rt, v, map[string]any{})
		caps := r["capabilities"].(map[string]any)
		if caps["tools"].(map[string]any)["listChanged"] != true || caps["prompts"].(map[string]any)["listChanged"] != true {
			t.Fatalf("%s list changes not offered: %v", v, caps)
		}
		if res := caps["resources"].(map[string]any); res["subscribe"] != true || res["listChanged"] != true {
			t.Fatalf("%s subscribe not offered: %v", v, caps)
		}
		woken := make(chan struct{}, 1)
		c.sess.SetWake(func() {
			select {
			case woken <- struct{}{}:
			default:
			}
		})
		if f := c.sess.NextNotification(); f != nil {
			t.Fatalf("%s: a notification before any change: %s", v, f)
		}
		next := func() []byte {
			t.Helper()
			f := c.sess.NextNotification()
			if f == nil {
				t.Fatalf("%s: no notification", v)
			}
			if err := testkit.ValidateFrame(v, f, ""); err != nil {
				t.Fatalf("%s: %v\n%s", v, err, f)
			}
			return f
		}
		hub.ToolsListChanged()
		select {
		case <-woken:
		default:
			t.Fatalf("%s: the session was not woken", v)
		}
		if f := next(); string(f) != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("%s: %s", v, f)
		}
		if f := string(c.call("resources/subscribe", map[string]any{"uri": "test://static"}).Result); f != "{}" {
			t.Fatalf("%s subscribe: %s", v, f)
		}
		resultOf(t, c.call("resources/subscribe", map[string]any{"uri": "test://static"})) // again: no change
		rpcError(t, c.call("resources/subscribe", map[string]any{"uri": "relative"}), jsonrpc.CodeInvalidParams)
		rpcError(t, c.call("resources/subscribe", nil), jsonrpc.CodeInvalidParams)
		rpcError(t, c.call("resources/subscribe", map[string]any{"uri": secret}), mcp.CodeResourceNotFound)
		if got := c.sess.Subscriptions(); len(got) != 1 || got[0] != "test://static" {
			t.Fatalf("%s subscriptions = %v", v, got)
		}
		if _, err := hub.ResourceUpdated("test://other"); err != nil {
			t.Fatal(err)
		}
		if _, err := hub.ResourceUpdated("test://static"); err != nil {
			t.Fatal(err)
		}
		if f := next(); string(f) != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://static"}}` {
			t.Fatalf("%s: %s", v, f)
		}
		if f := c.sess.NextNotification(); f != nil {
			t.Fatalf("%s: an update of a resource it did not subscribe to: %s", v, f)
		}
		if f := string(c.call("resources/unsubscribe", map[string]any{"uri": "test://static"}).Result); f != "{}" {
			t.Fatalf("%s unsubscribe: %s", v, f)
		}
		if _, err := hub.ResourceUpdated("test://static"); err != nil {
			t.Fatal(err)
		}
		if f := c.sess.NextNotification(); f != nil {
			t.Fatalf("%s: an update after unsubscribe: %s", v, f)
		}
		before := hub.Stats().Listeners
		c.sess.Close()
		if after := hub.Stats().Listeners; after != before-1 {
			t.Fatalf("%s: closing the session left its listener (%d → %d)", v, before, after)
		}
	}
	// Without a session nothing can carry the notifications.
	f := testfixture.DispatchVersion(t, rt, "2025-11-25", testfixture.LegacyRequest(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}), nil)
	caps := resultOf(t, f)["capabilities"].(map[string]any)
	if _, ok := caps["tools"].(map[string]any)["listChanged"]; ok || caps["resources"].(map[string]any)["subscribe"] != nil {
		t.Fatalf("offered without a session: %v", caps)
	}
	f = testfixture.DispatchVersion(t, rt, "2025-11-25", testfixture.LegacyRequest(2, "resources/subscribe", map[string]any{"uri": "test://static"}),
		func(r *dispatch.Request) { r.ProtocolVersion = "2025-11-25" })
	rpcError(t, f, jsonrpc.CodeMethodNotFound)

	// A source that is not a SessionSource cannot follow
	// resources/subscribe.
	other := legacyRuntime(t, nil, dispatch.WithSubscriptions(notAHub{}))
	c, r := initialize(t, other, "2025-11-25", map[string]any{})
	if res := r["capabilities"].(map[string]any)["resources"].(map[string]any); res["subscribe"] != nil || res["listChanged"] != nil {
		t.Fatalf("offered with a source that is not a SessionSource: %v", res)
	}
	rpcError(t, c.call("resources/subscribe", map[string]any{"uri": "test://static"}), jsonrpc.CodeMethodNotFound)
}

type notAHub struct{}

func (notAHub) OpenSubscription(context.Context, *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	return nil, mcp.SubscriptionFilter{}, errors.New("unused")
}
