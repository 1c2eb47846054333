package stdio_test

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
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// legacyTestRuntime has tools that need the client: an elicitation, a
// three-round exchange (sampling and roots, then a url elicitation) that
// carries state between rounds, and one that logs.
func legacyTestRuntime(t testing.TB, entered chan<- string) *dispatch.Runtime {
	t.Helper()
	form := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	rt, err := dispatch.New(mcp.Implementation{Name: "legacy-stdio", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithClientLogging(),
		dispatch.WithTool(mcp.Tool{Name: "ask_name"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if entered != nil {
				entered <- req.Info.ID.String()
			}
			ans, ok := req.Input.Elicitation("name")
			if !ok {
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"name": mcp.ElicitForm("Your name?", form)}}
			}
			dispatch.ClientLogger(ctx).Info("got an answer", "action", ans.Action)
			return mcp.TextResult(fmt.Sprintf("hello %v (%s)", ans.Content["name"], ans.Action)), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "three_rounds"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			state, _ := req.Input.State()
			switch string(state) {
			case "":
				return nil, &dispatch.InputRequired{State: []byte("round-2"), Requests: map[string]mcp.InputRequest{
					"model": &mcp.CreateMessageRequest{MaxTokens: 10, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.Text("hi")}}}},
					"roots": &mcp.ListRootsRequest{},
				}}
			case "round-2":
				s, okS := req.Input.Sampling("model")
				r, okR := req.Input.Roots("roots")
				if !okS || !okR {
					return mcp.ErrorResult("round 2 lacks its answers"), nil
				}
				return nil, &dispatch.InputRequired{State: []byte("round-3:" + mcp.TextOf(s.Content) + ":" + r.Roots[0].URI), Requests: map[string]mcp.InputRequest{
					"consent": mcp.ElicitURL("Please sign in", "https://example.com/consent"),
				}}
			}
			if e, ok := req.Input.Elicitation("consent"); !ok || e.Action != "accept" {
				return mcp.ErrorResult("no consent"), nil
			}
			return mcp.TextResult(string(state)), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// handshake initializes a stdio connection at version.
func handshake(t *testing.T, srv *testkit.StdioServer, version string, caps map[string]any) {
	t.Helper()
	srv.Client.SetVersion(version)
	srv.Send(t, testfixture.Initialize(0, version, caps))
	r := srv.Client.AwaitResponse(t, "0")
	if r.Error != nil || !strings.Contains(string(r.Result), `"protocolVersion":"`+version+`"`) {
		t.Fatalf("initialize: %s", r.Raw)
	}
	srv.Send(t, testkit.Notification("notifications/initialized", nil))
}

// awaitServerRequest waits for the server's next request with method.
func awaitServerRequest(t *testing.T, c *testkit.Client, method string, after int) *testkit.Frame {
	t.Helper()
	n := 0
	f, err := c.Await(context.Background(), func(f *testkit.Frame) bool {
		if f.Method == method && f.ID != nil {
			n++
			return n > after
		}
		return false
	})
	if err != nil {
		t.Fatalf("no %s request from the server: %v", method, err)
	}
	return f
}

func TestLegacyClientElicitsOverStdio(t *testing.T) {
	srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
	handshake(t, srv, mcp.Version20250618, map[string]any{"elicitation": map[string]any{}})
	if r := srv.Client.Send(testfixture.LegacyRequest(1, "logging/setLevel", map[string]any{"level": "info"})); r != nil {
		t.Fatal(r)
	}
	if r := srv.Client.AwaitResponse(t, "1"); string(r.Result) != "{}" {
		t.Fatalf("setLevel: %s", r.Raw)
	}

	srv.Send(t, testfixture.LegacyRequest(2, "tools/call", map[string]any{"name": "ask_name"}))
	ask := awaitServerRequest(t, srv.Client, "elicitation/create", 0)
	var params map[string]any
	if err := json.Unmarshal(ask.Params, &params); err != nil {
		t.Fatal(err)
	}
	if _, hasMode := params["mode"]; hasMode || params["message"] != "Your name?" {
		t.Fatalf("2025-06-18 elicitation params: %s", ask.Params)
	}
	// A response that matches no request of ours is ignored.
	srv.Send(t, testfixture.Response(json.RawMessage(`987`), map[string]any{"action": "cancel"}, 0))
	srv.Send(t, testfixture.Response(ask.ID, map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, 0))
	r := srv.Client.AwaitResponse(t, "2")
	if r.Error != nil || !strings.Contains(string(r.Result), "hello Ada (accept)") {
		t.Fatalf("tools/call: %s", r.Raw)
	}
	// The log record went out before the response, at the session's level.
	var logged bool
	for _, f := range srv.Client.Frames() {
		if f.Method == "notifications/message" {
			logged = true
		}
		if f.Method == "" && string(f.ID) == "2" && !logged {
			t.Fatal("no log message before the response")
		}
	}
	// The same answer delivered twice matches nothing the second time.
	srv.Send(t, testfixture.Response(ask.ID, map[string]any{"action": "decline"}, 0))
	if p := srv.Client.Call(t, "tools/list", nil); p.Error != nil {
		t.Fatalf("a 2026-07-28 request on a legacy connection: %s", p.Raw)
	}
}

func TestLegacyMultiRoundOverStdio(t *testing.T) {
	srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
	handshake(t, srv, mcp.Version20251125, map[string]any{
		"sampling": map[string]any{}, "roots": map[string]any{}, "elicitation": map[string]any{"url": map[string]any{}},
	})
	srv.Send(t, testfixture.LegacyRequest("mr", "tools/call", map[string]any{"name": "three_rounds"}))
	// Round one: the requests go out one at a time, in key order.
	model := awaitServerRequest(t, srv.Client, "sampling/createMessage", 0)
	srv.Send(t, testfixture.Response(model.ID, map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "sampled"}}, 0))
	roots := awaitServerRequest(t, srv.Client, "roots/list", 0)
	srv.Send(t, testfixture.Response(roots.ID, map[string]any{"roots": []any{map[string]any{"uri": "file:///work"}}}, 0))
	// Round two: a url elicitation, with the id 2025-11-25 requires.
	consent := awaitServerRequest(t, srv.Client, "elicitation/create", 0)
	var p struct {
		Mode, URL, ElicitationID string
	}
	if err := json.Unmarshal(consent.Params, &p); err != nil || p.Mode != "url" || p.URL != "https://example.com/consent" || len(p.ElicitationID) != 32 {
		t.Fatalf("url elicitation params: %s", consent.Params)
	}
	srv.Send(t, testfixture.Response(consent.ID, map[string]any{"action": "accept"}, 0))
	r := srv.Client.AwaitResponse(t, `"mr"`)
	if r.Error != nil || !strings.Contains(string(r.Result), "round-3:sampled:file:///work") {
		t.Fatalf("three rounds: %s", r.Raw)
	}
}

func TestLegacyClientErrorAndMissingCapability(t *testing.T) {
	srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
	handshake(t, srv, mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
	srv.Send(t, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
	ask := awaitServerRequest(t, srv.Client, "elicitation/create", 0)
	srv.Send(t, testfixture.Response(ask.ID, nil, -32601))
	r := srv.Client.AwaitResponse(t, "1")
	if r.Error == nil || r.Error.Code != -32603 || !strings.Contains(r.Error.Message, "elicitation/create") {
		t.Fatalf("client error: %s", r.Raw)
	}
	// No sampling capability was declared: nothing is sent to the client.
	srv.Send(t, testfixture.LegacyRequest(2, "tools/call", map[string]any{"name": "three_rounds"}))
	if r := srv.Client.AwaitResponse(t, "2"); r.Error == nil || r.Error.Code != -32021 {
		t.Fatalf("missing capability: %s", r.Raw)
	}
	for _, f := range srv.Client.Frames() {
		if f.Method == "sampling/createMessage" {
			t.Fatal("a sampling request went to a client that cannot sample")
		}
	}
}

// TestOutstandingClientRequestEndsWithTheInput: once input ends, no
// answer can arrive; the request waiting for one fails at once instead
// of at its deadline, and the connection then drains normally.
func TestOutstandingClientRequestEndsWithTheInput(t *testing.T) {
	entered := make(chan string, 4)
	srv := testkit.StartStdio(t, legacyTestRuntime(t, entered))
	handshake(t, srv, mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
	srv.Send(t, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
	awaitServerRequest(t, srv.Client, "elicitation/create", 0)
	srv.CloseInput()
	if r := srv.Client.AwaitResponse(t, "1"); r.Error == nil || r.Error.Code != -32603 {
		t.Fatalf("outstanding request: %s", r.Raw)
	}
	if err := srv.Wait(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestOutstandingClientRequestCancelledOnStop: stopping the connection
// cancels the request waiting for the client; nothing more is written.
func TestOutstandingClientRequestCancelledOnStop(t *testing.T) {
	srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
	handshake(t, srv, mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
	srv.Send(t, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
	awaitServerRequest(t, srv.Client, "elicitation/create", 0)
	srv.Cancel()
	if err := srv.Wait(t); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve: %v", err)
	}
	for _, f := range srv.Client.WaitClosed(t) {
		if f.Method == "" && string(f.ID) == "1" {
			t.Fatalf("a cancelled request was answered: %s", f.Raw)
		}
	}
}

// TestLegacyChangeNotificationsOverStdio: the connection writes the
// session's change notifications, fed by the Hub, between responses.
func TestLegacyChangeNotificationsOverStdio(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt, err := dispatch.New(mcp.Implementation{Name: "legacy-hub", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithSubscriptions(hub),
		dispatch.WithTool(mcp.Tool{Name: "noop"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "test://watched", Name: "watched"}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "v1")}}, nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{mcp.Version20251125, mcp.Version20250618} {
		srv := testkit.StartStdio(t, rt)
		handshake(t, srv, v, nil)
		srv.Send(t, testfixture.LegacyRequest(1, "resources/subscribe", map[string]any{"uri": "test://watched"}))
		if r := srv.Client.AwaitResponse(t, "1"); string(r.Result) != "{}" {
			t.Fatalf("%s subscribe: %s", v, r.Raw)
		}
		if _, err := hub.ResourceUpdated("test://watched"); err != nil {
			t.Fatal(err)
		}
		hub.ToolsListChanged()
		for _, want := range []string{"notifications/resources/updated", "notifications/tools/list_changed"} {
			f, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Method == want })
			if err != nil {
				t.Fatalf("%s: no %s: %v", v, want, err)
			}
			if want == "notifications/resources/updated" && !strings.Contains(string(f.Params), `"uri":"test://watched"`) {
				t.Fatalf("%s: %s", v, f.Raw)
			}
		}
		srv.Send(t, testfixture.LegacyRequest(2, "resources/unsubscribe", map[string]any{"uri": "test://watched"}))
		if r := srv.Client.AwaitResponse(t, "2"); string(r.Result) != "{}" {
			t.Fatalf("%s unsubscribe: %s", v, r.Raw)
		}
		srv.CloseInput()
		if err := srv.Wait(t); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		updates := 0
		for _, f := range srv.Client.WaitClosed(t) {
			if f.Method == "notifications/resources/updated" {
				updates++
			}
		}
		if updates != 1 {
			t.Fatalf("%s: %d updates", v, updates)
		}
	}
	if n := hub.Stats().Listeners; n != 0 {
		t.Fatalf("%d listeners left after the connections ended", n)
	}
}
