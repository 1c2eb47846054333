package streamablehttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// legacyRuntime serves the initialize-era revisions (and 2026-07-28) with
// a tool that elicits and one that logs.
func legacyRuntime(t testing.TB) *dispatch.Runtime {
	t.Helper()
	form := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	rt, err := dispatch.New(mcp.Implementation{Name: "http-legacy", Version: "1.0.0"},
		dispatch.WithLogger(quiet()),
		dispatch.WithClientLogging(),
		dispatch.WithTool(mcp.Tool{Name: "ask_name"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			ans, ok := req.Input.Elicitation("name")
			if !ok {
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"name": mcp.ElicitForm("Your name?", form)}}
			}
			return mcp.TextResult(fmt.Sprintf("hello %v", ans.Content["name"])), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		dispatch.WithTool(mcp.Tool{Name: "chatty"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				dispatch.ClientLogger(ctx).Info("step", "n", i)
			}
			return mcp.TextResult("done"), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

var sessionsOn = streamablehttp.WithSessions(streamablehttp.SessionConfig{})

// rawDo sends a request with no body and returns the response.
func rawDo(t *testing.T, ctx context.Context, method, url string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// openGet opens a session's GET stream.
func openGet(t *testing.T, ctx context.Context, url, id string) *http.Response {
	t.Helper()
	return rawDo(t, ctx, http.MethodGet, url, http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {id}})
}

func TestSessionsAreOffByDefault(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t))
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20250618, nil)
		if s.ID != "" {
			t.Fatalf("a session id was issued with sessions off: %q", s.ID)
		}
		var caps struct {
			Capabilities map[string]any `json:"capabilities"`
		}
		if err := json.Unmarshal(s.Init.Last().Result, &caps); err != nil || caps.Capabilities["logging"] != nil {
			t.Fatalf("initialize without a session: %s", s.Init.Body)
		}
		// The version header alone serves the client.
		if f := s.Call(t, 1, "tools/list", nil); f.Error != nil || strings.Contains(string(f.Result), "resultType") {
			t.Fatalf("tools/list: %s", f.Raw)
		}
		// No session keeps a log level: the method is unknown, which an
		// initialize-era client gets with 200 (404 would say its session
		// is gone).
		r := s.Post(t, testfixture.LegacyRequest(2, "logging/setLevel", map[string]any{"level": "info"}), nil)
		if r.Status != http.StatusOK || r.Last().Error == nil || r.Last().Error.Code != -32601 {
			t.Fatalf("setLevel without a session: %d %s", r.Status, r.Body)
		}
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := rawDo(t, context.Background(), m, ep.url, http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"abc"}})
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
				t.Fatalf("%s: %d Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	})
}

func TestSessionLifecycle(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t), sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil)
		if len(s.ID) != 43 || strings.ContainsFunc(s.ID, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			t.Fatalf("session id %q", s.ID)
		}
		if other := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil); other.ID == s.ID {
			t.Fatal("two sessions got the same id")
		}
		tree := testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return n.Count(ep.kind) == 1 })
		if host := testkit.Find(tree, ep.kind); host.Attrs["sessions"] != "2" {
			t.Fatalf("host attributes: %v", host.Attrs)
		}
		if f := s.Call(t, 1, "ping", nil); string(f.Result) != "{}" {
			t.Fatalf("ping: %s", f.Raw)
		}
		if f := s.Call(t, 2, "logging/setLevel", map[string]any{"level": "debug"}); string(f.Result) != "{}" {
			t.Fatalf("setLevel: %s", f.Raw)
		}
		r := s.Post(t, testfixture.LegacyRequest(3, "tools/call", map[string]any{"name": "chatty"}), nil)
		var logs int
		for _, f := range r.Frames {
			if f.Method == "notifications/message" {
				logs++
			}
		}
		if logs != 3 || r.Last().Error != nil {
			t.Fatalf("with-logging call: %d messages: %s", logs, r.Body)
		}
		// A 2026-07-28 request ignores sessions.
		if r := testfixture.PostMCP(t, nil, ep.url, testkit.Request(4, "tools/list", nil), nil); r.Status != 200 || r.Header.Get(mcp.HeaderSessionID) != "" {
			t.Fatalf("2026 request: %d %s", r.Status, r.Body)
		}

		// The refusals. (A ping needs no session: see
		// TestPingBeforeTheInitializeResponse.)
		noID := s.Post(t, testfixture.LegacyRequest(5, "tools/list", nil), func(r *http.Request) { r.Header.Del("Mcp-Session-Id") })
		unknown := s.Post(t, testfixture.LegacyRequest(6, "ping", nil), func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "no-such-session") })
		bad := s.Post(t, testfixture.LegacyRequest(7, "ping", nil), func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "a b") })
		for _, c := range []struct {
			r    *testfixture.HTTPReply
			want int
		}{{noID, 400}, {unknown, 404}, {bad, 400}} {
			if c.r.Status != c.want || c.r.Last() == nil || c.r.Last().Error == nil {
				t.Fatalf("want %d with an error: %d %s", c.want, c.r.Status, c.r.Body)
			}
		}
		// A response that matches nothing is accepted and ignored.
		if r := s.Post(t, testfixture.Response(json.RawMessage(`41`), map[string]any{}, 0), nil); r.Status != http.StatusAccepted {
			t.Fatalf("stray response: %d", r.Status)
		}

		if st := s.Delete(t); st != http.StatusNoContent {
			t.Fatalf("DELETE: %d", st)
		}
		if r := s.Post(t, testfixture.LegacyRequest(8, "ping", nil), nil); r.Status != http.StatusNotFound {
			t.Fatalf("after DELETE: %d %s", r.Status, r.Body)
		}
		if st := s.Delete(t); st != http.StatusNotFound {
			t.Fatalf("second DELETE: %d", st)
		}
		if resp := openGet(t, context.Background(), ep.url, s.ID); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET after DELETE: %d", resp.StatusCode)
		}
		if resp := rawDo(t, context.Background(), http.MethodDelete, ep.url, nil); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("DELETE without an id: %d", resp.StatusCode)
		}
	})
}

// TestServerToClientRequestOverHTTP: the elicitation goes out on the
// tools/call's own event stream, the answer comes back as a POST in the
// session, and the call completes on the same stream.
func TestServerToClientRequestOverHTTP(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t), sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20250618, map[string]any{"elicitation": map[string]any{}})
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		req, err := s.NewRequest(ctx, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		checkSSEHeaders(t, resp.Header)
		sr := testfixture.NewSSEReader(resp.Body)
		next := func(method string) *testkit.Frame {
			t.Helper()
			for {
				data, comment, err := sr.Next()
				if err != nil {
					t.Fatalf("reading event: %v", err)
				}
				if !comment {
					return testfixture.CheckFrameVersion(t, data, method, s.Version)
				}
			}
		}
		ask := next("")
		if ask.Method != "elicitation/create" || ask.ID == nil {
			t.Fatalf("first event: %s", ask.Raw)
		}
		if r := s.Post(t, testfixture.Response(ask.ID, map[string]any{"action": "accept", "content": map[string]any{"name": "Lin"}}, 0), nil); r.Status != http.StatusAccepted {
			t.Fatalf("answer: %d %s", r.Status, r.Body)
		}
		if f := next("tools/call"); f.Error != nil || !strings.Contains(string(f.Result), "hello Lin") {
			t.Fatalf("result: %s", f.Raw)
		}
		if _, _, err := sr.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("the stream did not end after the result: %v", err)
		}
	})
}

// TestDeleteEndsOutstandingRequests: a request waiting for the client's
// answer fails when its session is deleted, and the session's GET stream
// ends.
func TestDeleteEndsOutstandingRequests(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t), sessionsOn, streamablehttp.WithLimits(streamablehttp.Limits{KeepAlive: 10 * time.Millisecond}))
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		get := openGet(t, ctx, ep.url, s.ID)
		if get.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", get.StatusCode)
		}
		checkSSEHeaders(t, get.Header)
		gr := testfixture.NewSSEReader(get.Body)
		if _, comment, err := gr.Next(); err != nil || !comment {
			t.Fatalf("want a keepalive on the GET stream: %v %v", comment, err)
		}
		if again := openGet(t, ctx, ep.url, s.ID); again.StatusCode != http.StatusConflict {
			t.Fatalf("second GET: %d", again.StatusCode)
		}
		tree := testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))
		if req := testkit.Find(tree, "request"); req == nil || req.Attrs["response"] != "text/event-stream" {
			t.Fatalf("the GET stream is not a request actor: %+v", tree)
		}

		req, err := s.NewRequest(ctx, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sr := testfixture.NewSSEReader(resp.Body)
		data, _, err := sr.Next()
		if err != nil || !strings.Contains(string(data), "elicitation/create") {
			t.Fatalf("first event: %s %v", data, err)
		}
		if st := s.Delete(t); st != http.StatusNoContent {
			t.Fatalf("DELETE: %d", st)
		}
		for {
			data, comment, err := sr.Next()
			if err != nil {
				t.Fatalf("the call ended without a response: %v", err)
			}
			if comment {
				continue
			}
			if f := testfixture.CheckFrameVersion(t, data, "tools/call", s.Version); f.Error == nil || f.Error.Code != -32603 {
				t.Fatalf("outstanding call: %s", data)
			}
			break
		}
		for {
			_, _, err := gr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("GET stream: %v", err)
			}
		}
		testkit.WaitTree(t, ep.sup, subscriptionsOpen(0))
	})
}

func TestIdleSessionsExpire(t *testing.T) {
	ep := startListener(t, legacyRuntime(t), streamablehttp.WithSessions(streamablehttp.SessionConfig{IdleTimeout: 40 * time.Millisecond}),
		streamablehttp.WithLimits(streamablehttp.Limits{KeepAlive: 10 * time.Millisecond}))
	// A session with its GET stream open is in use: several keepalives
	// (each 10 ms apart) outlast the idle timeout and it is still there.
	held := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil)
	ctx, cancel := context.WithCancel(context.Background())
	get := openGet(t, ctx, ep.url, held.ID)
	gr := testfixture.NewSSEReader(get.Body)
	for range 8 {
		if _, comment, err := gr.Next(); err != nil || !comment {
			t.Fatalf("keepalive: %v %v", comment, err)
		}
	}
	if f := held.Call(t, 1, "ping", nil); f.Error != nil {
		t.Fatalf("a session with an open GET stream expired: %s", f.Raw)
	}
	cancel()
	// Left alone, it expires.
	testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
		h := testkit.Find(n, "listener")
		return h != nil && h.Attrs["sessions"] == "0"
	})
	if r := held.Post(t, testfixture.LegacyRequest(2, "ping", nil), nil); r.Status != http.StatusNotFound {
		t.Fatalf("expired session: %d", r.Status)
	}
}

func TestSessionBoundToPrincipalAndLimited(t *testing.T) {
	user := func(r *http.Request) any { return r.Header.Get("X-User") }
	ep := startListener(t, legacyRuntime(t), streamablehttp.WithPrincipal(user),
		streamablehttp.WithSessions(streamablehttp.SessionConfig{BindPrincipal: true, MaxSessions: 1}))
	asAlice := func(r *http.Request) { r.Header.Set("X-User", "alice") }
	s := &testfixture.HTTPSession{URL: ep.url, Client: http.DefaultClient, Version: mcp.Version20251125}
	s.Init = s.Post(t, testfixture.Initialize(0, s.Version, nil), func(r *http.Request) { asAlice(r); r.Header.Del("Mcp-Protocol-Version") })
	s.ID = s.Init.Header.Get(mcp.HeaderSessionID)
	if s.ID == "" {
		t.Fatalf("no session: %s", s.Init.Body)
	}
	if r := s.Post(t, testfixture.LegacyRequest(1, "ping", nil), asAlice); r.Status != 200 {
		t.Fatalf("alice: %d", r.Status)
	}
	if r := s.Post(t, testfixture.LegacyRequest(2, "ping", nil), func(r *http.Request) { r.Header.Set("X-User", "bob") }); r.Status != http.StatusNotFound {
		t.Fatalf("bob with alice's session: %d", r.Status)
	}
	// One session at most: the next initialize is refused until the
	// first one ends.
	second := s.Post(t, testfixture.Initialize(0, s.Version, nil), func(r *http.Request) {
		r.Header.Del("Mcp-Session-Id")
		r.Header.Del("Mcp-Protocol-Version")
	})
	if second.Status != http.StatusServiceUnavailable || second.Header.Get(mcp.HeaderSessionID) != "" {
		t.Fatalf("initialize over the limit: %d %s", second.Status, second.Body)
	}
	req, _ := http.NewRequest(http.MethodDelete, ep.url, nil)
	req.Header.Set(mcp.HeaderSessionID, s.ID)
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if third := testfixture.OpenHTTPSession(t, ep.url, s.Version, nil); third.ID == "" {
		t.Fatal("no session after the first ended")
	}
}

// TestDrainEndsGetStreams: a graceful shutdown ends the sessions' GET
// streams instead of waiting for them.
func TestDrainEndsGetStreams(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t), sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil)
		get := openGet(t, context.Background(), ep.url, s.ID)
		if get.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", get.StatusCode)
		}
		testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		if err := ep.shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if _, err := io.ReadAll(get.Body); err != nil {
			t.Fatalf("GET stream: %v", err)
		}
	})
}

// TestSessionGetStreamCarriesChanges: a session's change notifications,
// fed by the Hub, go out on its GET stream; one published before the
// stream opened waits for it.
func TestSessionGetStreamCarriesChanges(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt, err := dispatch.New(mcp.Implementation{Name: "http-hub", Version: "1.0.0"},
		dispatch.WithLogger(quiet()),
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
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, rt, sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20250618, nil)
		var init struct {
			Capabilities struct {
				Resources map[string]bool `json:"resources"`
				Tools     map[string]bool `json:"tools"`
			} `json:"capabilities"`
		}
		if err := json.Unmarshal(s.Init.Last().Result, &init); err != nil || !init.Capabilities.Resources["subscribe"] || !init.Capabilities.Tools["listChanged"] {
			t.Fatalf("capabilities: %s", s.Init.Body)
		}
		if f := s.Call(t, 1, "resources/subscribe", map[string]any{"uri": "test://watched"}); string(f.Result) != "{}" {
			t.Fatalf("subscribe: %s", f.Raw)
		}
		if _, err := hub.ResourceUpdated("test://watched"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		get := openGet(t, ctx, ep.url, s.ID)
		gr := testfixture.NewSSEReader(get.Body)
		event := func() *testkit.Frame {
			t.Helper()
			for {
				data, comment, err := gr.Next()
				if err != nil {
					t.Fatalf("GET stream: %v", err)
				}
				if !comment {
					return testfixture.CheckFrameVersion(t, data, "", s.Version)
				}
			}
		}
		if f := event(); f.Method != "notifications/resources/updated" || !strings.Contains(string(f.Params), "test://watched") {
			t.Fatalf("first event: %s", f.Raw)
		}
		hub.ToolsListChanged()
		if f := event(); f.Method != "notifications/tools/list_changed" {
			t.Fatalf("second event: %s", f.Raw)
		}
		if st := s.Delete(t); st != http.StatusNoContent {
			t.Fatalf("DELETE: %d", st)
		}
	})
	if n := hub.Stats().Listeners; n != 0 {
		t.Fatalf("%d listeners left after the sessions ended", n)
	}
}

// TestClientCancelsInItsSession: in the initialize era a client cancels
// with notifications/cancelled, not by going away. The request's work
// stops and it gets no response: 202 before anything was sent, or the
// end of its event stream.
func TestClientCancelsInItsSession(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, legacyRuntime(t), sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
		cancelLater := func(id int) {
			testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
			r := s.Post(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": id, "reason": "changed my mind"}), nil)
			if r.Status != http.StatusAccepted {
				t.Errorf("cancel: %d", r.Status)
			}
		}
		// A JSON answer not started yet.
		type reply struct {
			status int
			body   []byte
			err    error
		}
		replied := make(chan reply, 1)
		req, err := s.NewRequest(context.Background(), testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "wait"}))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				replied <- reply{err: err}
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			replied <- reply{resp.StatusCode, body, err}
		}()
		cancelLater(1)
		if r := <-replied; r.err != nil || r.status != http.StatusAccepted || len(r.body) != 0 {
			t.Fatalf("cancelled call: %d %s %v", r.status, r.body, r.err)
		}
		testkit.WaitNoRequests(t, ep.sup)

		// An event stream under way (the server is asking the client).
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		req, err = s.NewRequest(ctx, testfixture.LegacyRequest(2, "tools/call", map[string]any{"name": "ask_name"}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sr := testfixture.NewSSEReader(resp.Body)
		if data, _, err := sr.Next(); err != nil || !strings.Contains(string(data), "elicitation/create") {
			t.Fatalf("first event: %s %v", data, err)
		}
		cancelLater(2)
		for {
			data, comment, err := sr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if !comment {
				t.Fatalf("an event after the cancellation: %s", data)
			}
		}
		testkit.WaitNoRequests(t, ep.sup)
		// Unknown ids are ignored, and the session goes on.
		if r := s.Post(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 99}), nil); r.Status != http.StatusAccepted {
			t.Fatalf("unknown id: %d", r.Status)
		}
		if f := s.Call(t, 3, "ping", nil); f.Error != nil {
			t.Fatalf("ping: %s", f.Raw)
		}
	})
}
