package streamablehttp_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// refusalsOf returns the refusal events recorded so far.
func refusalsOf(ev *testfixture.Events) []instrumentation.RefusalEvent {
	return testfixture.EventsOf[instrumentation.RefusalEvent](ev)
}

// wantOneRefusal checks that exactly one refusal was recorded, with want's
// fields, and that no call reached the core.
func wantOneRefusal(t *testing.T, ev *testfixture.Events, want instrumentation.RefusalEvent) {
	t.Helper()
	got := refusalsOf(ev)
	if len(got) != 1 || got[0] != want {
		t.Fatalf("refusals %+v, want [%+v]", got, want)
	}
	if starts := testfixture.EventsOf[instrumentation.DispatchStart](ev); len(starts) != 0 {
		t.Fatalf("a refused request reached the core: %+v", starts)
	}
}

// Each refusal the transport makes in Prepare reaches the Runtime's sink
// with its reason, status and code, and nothing of the body.
func TestPrepareRefusalsAreEvents(t *testing.T) {
	frame := call(1, "echo", map[string]any{"text": "secret-body"})
	edit := func(f func(r *streamablehttp.Request)) func() *streamablehttp.Request {
		return func() *streamablehttp.Request {
			r := plainRequest(frame, "")
			f(r)
			return r
		}
	}
	cases := []struct {
		name     string
		opts     []streamablehttp.HandlerOption
		req      func() *streamablehttp.Request
		reason   instrumentation.RefusalReason
		status   int
		code     int64
		method   string
		sessions bool
	}{
		{name: "path", opts: []streamablehttp.HandlerOption{streamablehttp.WithPath("/mcp")}, req: edit(func(r *streamablehttp.Request) { r.Path = "/other" }), reason: instrumentation.RefusalPath, status: 404},
		{name: "method", req: edit(func(r *streamablehttp.Request) { r.Method = "PURGE" }), reason: instrumentation.RefusalMethodNotAllowed, status: 405, code: -32600, method: "_OTHER"},
		{name: "origin", req: edit(func(r *streamablehttp.Request) { r.Header.Set("Origin", "https://evil.example") }), reason: instrumentation.RefusalOrigin, status: 403, code: -32600},
		{name: "host", opts: []streamablehttp.HandlerOption{streamablehttp.WithAllowedHosts("mcp.example")}, req: edit(func(*streamablehttp.Request) {}), reason: instrumentation.RefusalHost, status: 403, code: -32600},
		{name: "content type", req: edit(func(r *streamablehttp.Request) { r.Header.Set("Content-Type", "text/plain") }), reason: instrumentation.RefusalContentType, status: 415, code: -32600},
		{name: "accept", req: edit(func(r *streamablehttp.Request) { r.Header.Set("Accept", "text/html") }), reason: instrumentation.RefusalAccept, status: 406, code: -32600},
		{name: "length", req: edit(func(r *streamablehttp.Request) { r.ContentLength = -1 }), reason: instrumentation.RefusalLengthRequired, status: 411, code: -32600},
		{name: "declared too large", opts: []streamablehttp.HandlerOption{streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: 16})}, req: edit(func(*streamablehttp.Request) {}), reason: instrumentation.RefusalBodyTooLarge, status: 413, code: -32600},
		{name: "longer than declared", req: edit(func(r *streamablehttp.Request) { r.ContentLength = 10 }), reason: instrumentation.RefusalBodyTooLarge, status: 413, code: -32600},
		{name: "malformed", req: edit(func(r *streamablehttp.Request) { r.Body, r.ContentLength = strings.NewReader("{nope"), 5 }), reason: instrumentation.RefusalMalformed, status: 400, code: -32700},
		{name: "unknown session", sessions: true, req: edit(func(r *streamablehttp.Request) { r.Header.Set(mcp.HeaderSessionID, "no-such-session") }), reason: instrumentation.RefusalSessionNotFound, status: 404, code: -32600},
		{name: "unknown session GET", sessions: true, req: edit(func(r *streamablehttp.Request) {
			r.Method, r.Body, r.ContentLength = http.MethodGet, nil, 0
			r.Header.Set(mcp.HeaderSessionID, "no-such-session")
			r.Header.Set("Accept", "text/event-stream")
		}), reason: instrumentation.RefusalSessionNotFound, status: 404, code: -32600, method: http.MethodGet},
		{name: "malformed session", sessions: true, req: edit(func(r *streamablehttp.Request) { r.Header.Set(mcp.HeaderSessionID, "a b") }), reason: instrumentation.RefusalSessionInvalid, status: 400, code: -32600},
		{name: "GET without SSE", sessions: true, req: edit(func(r *streamablehttp.Request) {
			r.Method, r.Body, r.ContentLength = http.MethodGet, nil, 0
			r.Header.Set(mcp.HeaderSessionID, "some-session")
			r.Header.Set("Accept", "application/json")
		}), reason: instrumentation.RefusalAccept, status: 406, code: -32600, method: http.MethodGet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &testfixture.Events{}
			opts := c.opts
			if c.sessions {
				opts = append(opts, sessionsOn)
			}
			h := newHandler(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)), opts...)
			t.Cleanup(func() { _ = h.Close() })
			p, resp := h.Prepare(c.req())
			if p != nil || resp.Status != c.status {
				t.Fatalf("prepared %v, response %+v", p != nil, resp)
			}
			method := c.method
			if method == "" {
				method = http.MethodPost
			}
			wantOneRefusal(t, ev, instrumentation.RefusalEvent{Transport: "http", Reason: c.reason, Status: c.status, Code: c.code, HTTPMethod: method})
		})
	}
}

// A request that passes every check is no refusal.
func TestAcceptedRequestIsNoRefusal(t *testing.T) {
	ev := &testfixture.Events{}
	h := newHandler(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)))
	t.Cleanup(func() { _ = h.Close() })
	checkJSONResponse(t, mustHandle(t, h, plainRequest(discover(1), "")), "server/discover", 200)
	if got := refusalsOf(ev); len(got) != 0 {
		t.Fatalf("refusals %+v", got)
	}
}

func mustHandle(t *testing.T, h *streamablehttp.Handler, req *streamablehttp.Request) *streamablehttp.Response {
	t.Helper()
	resp, stream := h.Handle(context.Background(), req)
	if stream != nil {
		t.Fatal("an event stream")
	}
	return resp
}

// A drained handler refuses with 503 and reason draining.
func TestDrainingRefusalIsAnEvent(t *testing.T) {
	ev := &testfixture.Events{}
	h := newHandler(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)))
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, resp := h.Prepare(plainRequest(discover(1), "")); resp == nil || resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("after Shutdown: %+v", resp)
	}
	wantOneRefusal(t, ev, instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalDraining, Status: 503, Code: -32603, HTTPMethod: http.MethodPost})
}

// Executor overload, a duplicate id and the subscription cap are refused
// after admission: the event names the method, which the server serves.
func TestRefusalsAfterAdmissionNameTheMethod(t *testing.T) {
	g := newGate()
	ev := &testfixture.Events{}
	rt := testRuntime(t, g, dispatch.WithInstrumentation(ev))
	h := newHandler(t, rt, streamablehttp.WithSupervisor(limitedSupervisor(t, rt, supervisor.Limits{MaxConcurrency: 1, MaxQueue: -1, MaxSubscriptions: 1})))
	t.Cleanup(func() { _ = h.Close() })
	held := make(chan *streamablehttp.Response, 1)
	go func() {
		resp, _ := h.Handle(context.Background(), plainRequest(call(1, "hold", nil), "peer-a"))
		held <- resp
	}()
	waitFor(t, g.entered)
	if resp := mustHandle(t, h, plainRequest(call(1, "echo", nil), "peer-a")); resp.Status != http.StatusBadRequest {
		t.Fatalf("duplicate id: %d %s", resp.Status, resp.Body)
	}
	if resp := mustHandle(t, h, plainRequest(call(2, "echo", nil), "peer-a")); resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("overload: %d %s", resp.Status, resp.Body)
	}
	close(g.release)
	checkJSONResponse(t, <-held, "tools/call", 200)
	p, resp := h.Prepare(plainRequest(listenFrame(3), ""))
	if p == nil {
		t.Fatalf("first listen: %+v", resp)
	}
	if _, resp := h.Prepare(plainRequest(listenFrame(4), "")); resp == nil || resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("listen over the cap: %+v", resp)
	}
	p.Discard()
	got := refusalsOf(ev)
	want := []instrumentation.RefusalEvent{
		{Transport: "http", Reason: instrumentation.RefusalDuplicateID, Status: 400, Code: -32600, HTTPMethod: "POST", Method: "tools/call"},
		{Transport: "http", Reason: instrumentation.RefusalOverloaded, Status: 503, Code: -32603, HTTPMethod: "POST", Method: "tools/call"},
		{Transport: "http", Reason: instrumentation.RefusalSubscriptionLimit, Status: 503, Code: -32603, HTTPMethod: "POST", Method: dispatch.MethodListen},
	}
	if len(got) != len(want) {
		t.Fatalf("refusals %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("refusal %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The session limit refuses an initialize; an overload inside a live
// session and a second GET stream name the session.
func TestSessionRefusalsAreEvents(t *testing.T) {
	g := newGate()
	ev := &testfixture.Events{}
	rt := testRuntime(t, g, dispatch.WithInstrumentation(ev))
	sup := limitedSupervisor(t, rt, supervisor.Limits{MaxConcurrency: 1, MaxQueue: -1})
	h := newHandler(t, rt, streamablehttp.WithSupervisor(sup),
		streamablehttp.WithSessions(streamablehttp.SessionConfig{MaxSessions: 1}))
	t.Cleanup(func() { _ = h.Close() })
	initialize := func() *streamablehttp.Response {
		req := plainRequest(testfixture.Initialize(0, mcp.Version20251125, nil), "")
		return mustHandle(t, h, req)
	}
	first := initialize()
	id := first.Header.Get(mcp.HeaderSessionID)
	if first.Status != 200 || id == "" {
		t.Fatalf("initialize: %d %s", first.Status, first.Body)
	}
	if resp := initialize(); resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("initialize over the limit: %d %s", resp.Status, resp.Body)
	}
	inSession := func(frame []byte) *streamablehttp.Request {
		req := plainRequest(frame, "")
		req.Header.Set(mcp.HeaderSessionID, id)
		req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		return req
	}
	// The initialize's worker gives its one slot back just after its
	// answer is out; the held call needs it.
	waitExecutorIdle(t, sup)
	held := make(chan *streamablehttp.Response, 1)
	go func() {
		resp, _ := h.Handle(context.Background(), inSession(testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "hold"})))
		held <- resp
	}()
	waitFor(t, g.entered)
	if resp := mustHandle(t, h, inSession(testfixture.LegacyRequest(2, "tools/call", map[string]any{"name": "echo"}))); resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("overload in a session: %d %s", resp.Status, resp.Body)
	}
	close(g.release)
	if resp := <-held; resp.Status != 200 {
		t.Fatalf("held: %d %s", resp.Status, resp.Body)
	}
	// A second GET stream while the session has one.
	get := func() *streamablehttp.Request {
		req := inSession(nil)
		req.Method, req.Body, req.ContentLength = http.MethodGet, nil, 0
		req.Header.Set("Accept", "text/event-stream")
		return req
	}
	stream, resp := h.Prepare(get())
	if stream == nil {
		t.Fatalf("GET stream: %+v", resp)
	}
	if _, resp := h.Prepare(get()); resp == nil || resp.Status != http.StatusConflict {
		t.Fatalf("second GET stream: %+v", resp)
	}
	stream.Discard()
	got := refusalsOf(ev)
	want := []instrumentation.RefusalEvent{
		{Transport: "http", Reason: instrumentation.RefusalSessionLimit, Status: 503, Code: -32603, HTTPMethod: "POST"},
		{Transport: "http", Reason: instrumentation.RefusalOverloaded, Status: 503, Code: -32603, HTTPMethod: "POST", Method: "tools/call", Session: id},
		{Transport: "http", Reason: instrumentation.RefusalStreamOpen, Status: 409, Code: -32600, HTTPMethod: "GET", Session: id},
	}
	if len(got) != len(want) {
		t.Fatalf("refusals %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("refusal %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The native listener reports net/http's 431 for an oversized head, a
// connection closed unread at the cap, and a body that misses its
// timeout.
func TestListenerRefusalsAreEvents(t *testing.T) {
	t.Run("431", func(t *testing.T) {
		ev := &testfixture.Events{}
		srv := testfixture.StartHTTP(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxHeaderBytes: 8192}))
		frame := discover(1)
		c := dial(t, srv.Addr().String())
		if _, err := c.Write([]byte(rawRequest("/mcp", frame, "X-Pad: "+strings.Repeat("a", 10000), "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame))); err != nil {
			t.Fatal(err)
		}
		if resp := c.readHead(t); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("status %d", resp.StatusCode)
		}
		// net/http writes the 431 before the response reaches the client,
		// and the event is sent before that write.
		wantOneRefusal(t, ev, instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalHeaderTooLarge, Status: 431})
	})
	t.Run("connection cap", func(t *testing.T) {
		ev := &testfixture.Events{}
		srv := testfixture.StartHTTP(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxConnections: 1}))
		_ = dial(t, srv.Addr().String())
		testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "1" })
		over := dial(t, srv.Addr().String())
		if got := over.waitClosed(t); len(got) != 0 {
			t.Fatalf("a connection over the cap got %q", got)
		}
		testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["refused"] == "1" })
		wantOneRefusal(t, ev, instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalConnectionLimit})
	})
	t.Run("body timeout", func(t *testing.T) {
		ev := &testfixture.Events{}
		srv := testfixture.StartHTTP(t, testRuntime(t, nil, dispatch.WithInstrumentation(ev)),
			streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: 100 * time.Millisecond}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: time.Minute}))
		c := dial(t, srv.Addr().String())
		frame := discover(1)
		if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame[:10]))); err != nil {
			t.Fatal(err)
		}
		if resp := c.readResponse(t); resp.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("status %d", resp.StatusCode)
		}
		wantOneRefusal(t, ev, instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalBodyTimeout, Status: 408, Code: -32600, HTTPMethod: "POST"})
	})
}

// countingSink counts refusals without allocating.
type countingSink struct {
	instrumentation.Nop
	n int
}

func (s *countingSink) Refusal(instrumentation.RefusalEvent) { s.n++ }

// Reporting a refusal allocates nothing: without a sink a refused request
// costs exactly what it cost before events existed, and with one the
// event is built on the stack.
func TestRefusalEventsDoNotAllocate(t *testing.T) {
	allocs := func(opts ...dispatch.Option) float64 {
		h := newHandler(t, testRuntime(t, nil, opts...))
		t.Cleanup(func() { _ = h.Close() })
		req := plainRequest(discover(1), "")
		req.Header.Set("Origin", "https://evil.example")
		return testing.AllocsPerRun(200, func() {
			if _, resp := h.Prepare(req); resp.Status != http.StatusForbidden {
				t.Fatalf("status %d", resp.Status)
			}
		})
	}
	sink := &countingSink{}
	none, with := allocs(), allocs(dispatch.WithInstrumentation(sink))
	if sink.n == 0 {
		t.Fatal("the sink heard no refusal")
	}
	if with != none {
		t.Fatalf("a refusal allocates %v times with a sink, %v without: the event allocates", with, none)
	}
	h := newHandler(t, testRuntime(t, nil))
	t.Cleanup(func() { _ = h.Close() })
	if n := streamablehttp.NoteRefusalAllocs(h); n != 0 {
		t.Fatalf("noting a refusal without a sink allocates %v times", n)
	}
}

func BenchmarkRefusal(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []dispatch.Option
	}{{"none", nil}, {"sink", []dispatch.Option{dispatch.WithInstrumentation(&countingSink{})}}} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHandler(b, testRuntime(b, nil, bc.opts...))
			b.Cleanup(func() { _ = h.Close() })
			req := plainRequest(discover(1), "")
			req.Header.Set("Origin", "https://evil.example")
			req.Body = bytes.NewReader(nil)
			b.ReportAllocs()
			for b.Loop() {
				h.Prepare(req)
			}
		})
	}
}
