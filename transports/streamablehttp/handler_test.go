package streamablehttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// mount serves h inside an application mux under httptest and closes both
// when the test ends.
func mount(t *testing.T, h *streamablehttp.Handler, mux *http.ServeMux) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing handler: %v", err)
		}
	})
	return ts
}

func newHandler(t testing.TB, rt *dispatch.Runtime, opts ...streamablehttp.HandlerOption) *streamablehttp.Handler {
	t.Helper()
	h, err := streamablehttp.NewHandler(rt, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// requireToken is an application's bearer-token middleware: it puts the
// verified principal in the request context.
func requireToken(next http.Handler) http.Handler {
	users := map[string]string{"s3cret": "alice"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(streamablehttp.ContextWithPrincipal(r.Context(), user)))
	})
}

func TestHandlerInAMuxBehindAuthentication(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.Handle("/mcp", requireToken(h))
	ts := mount(t, h, mux)

	if r := testfixture.PostMCP(t, nil, ts.URL+"/mcp", call(1, "whoami", nil), nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("without a token: %d", r.Status)
	}
	// The MCP message cannot claim an identity; the middleware's wins.
	frame := testkit.Request(2, "tools/call", map[string]any{"name": "whoami", "_meta": map[string]any{"principal": "mallory"}})
	r := testfixture.PostMCP(t, nil, ts.URL+"/mcp", frame, setHeader("Authorization", "Bearer s3cret"))
	if r.Status != 200 || !strings.Contains(string(r.Last().Result), `"alice"`) {
		t.Fatalf("with a token: %d %s", r.Status, r.Body)
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health: %d", resp.StatusCode)
	}
}

func TestHandlerBodyTimeoutIs408(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: 200 * time.Millisecond}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := mount(t, h, mux)
	c := dial(t, ts.Listener.Addr().String())
	if _, err := c.Write([]byte(rawRequest("/mcp", discover(1), "Content-Length: 100000") + "\r\n")); err != nil {
		t.Fatal(err)
	}
	trickle(t, c, strings.Repeat(" ", 100000), 5*time.Millisecond)
	reply := testfixture.ReadHTTPReply(t, c.readResponse(t), "")
	if reply.Status != http.StatusRequestTimeout || reply.Last() == nil || reply.Last().Error == nil {
		t.Fatalf("%d %s", reply.Status, reply.Body)
	}
}

func TestHandlerRefusesTransferEncodingUnread(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := mount(t, h, mux)
	c := dial(t, ts.Listener.Addr().String())
	// The chunked body never ends: the answer cannot depend on reading it.
	if _, err := c.Write([]byte(rawRequest("/mcp", discover(1), "Transfer-Encoding: chunked") + "\r\n" + "10\r\n{\"jsonrpc\":\"2.0\"")); err != nil {
		t.Fatal(err)
	}
	reply := testfixture.ReadHTTPReply(t, c.readResponse(t), "")
	if reply.Status != http.StatusLengthRequired {
		t.Fatalf("%d %s", reply.Status, reply.Body)
	}
}

func TestHandlersSharingASupervisorShareTheSubscriptionCap(t *testing.T) {
	rt := testRuntime(t, nil)
	sup := limitedSupervisor(t, rt, supervisor.Limits{MaxSubscriptions: 1})
	a := newHandler(t, rt, streamablehttp.WithSupervisor(sup))
	b := newHandler(t, rt, streamablehttp.WithSupervisor(sup))
	mux := http.NewServeMux()
	mux.Handle("/a", a)
	mux.Handle("/b", b)
	ts := mount(t, a, mux)
	t.Cleanup(func() { _ = b.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := openStream(t, ctx, ts.URL+"/a", listenFrame(1))
	nextEvent(t, testfixture.NewSSEReader(resp.Body), "subscriptions/listen")
	r := testfixture.PostMCP(t, nil, ts.URL+"/b", listenFrame(2), nil)
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("second handler over the shared cap: %d %s", r.Status, r.Body)
	}
	if n := executorCount(t, sup, "subscriptions"); n != 1 {
		t.Fatalf("%d slots taken", n)
	}
}

// The options of the native listener alone are not HandlerOptions:
// passing one to NewHandler is a compile error, one per line of
// testdata/listeneronly, and the options of both compile there.
func TestListenerOnlyOptionsDoNotCompileOnAHandler(t *testing.T) {
	out, err := exec.Command("go", "build", "-o", os.DevNull, "./testdata/listeneronly").CombinedOutput()
	if err == nil {
		t.Fatal("a listener-only option compiled as a HandlerOption")
	}
	const refusal = "does not implement streamablehttp.HandlerOption"
	var refused []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, refusal) {
			_, after, _ := strings.Cut(line, "streamablehttp.With")
			name, _, _ := strings.Cut(after, "(")
			refused = append(refused, "With"+name)
		} else if strings.Contains(line, "main.go:") {
			t.Errorf("unexpected compile error: %s", line)
		}
	}
	want := []string{"WithAddr", "WithListener", "WithListenerLimits", "WithHTTPMiddleware"}
	if !slices.Equal(refused, want) {
		t.Fatalf("refused %v, want %v:\n%s", refused, want, out)
	}
}

func TestOptionsAreValidated(t *testing.T) {
	rt := testRuntime(t, nil)
	for want, opt := range map[string]streamablehttp.Option{
		"WithPath: path must start with /":                  streamablehttp.WithPath("mcp"),
		"WithAllowedHosts: at least one host is needed":     streamablehttp.WithAllowedHosts(),
		"WithLimits: MaxBodyBytes must not be negative":     streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: -1}),
		"WithLimits: RequestTimeout must not be negative":   streamablehttp.WithLimits(streamablehttp.Limits{RequestTimeout: -time.Second}),
		"WithSupervisor: nil supervisor":                    streamablehttp.WithSupervisor(nil),
		"WithPrincipal: nil principal function":             streamablehttp.WithPrincipal(nil),
		"WithSessions: session limits must not be negative": streamablehttp.WithSessions(streamablehttp.SessionConfig{MaxSessions: -1}),
	} {
		if h, err := streamablehttp.NewHandler(rt, opt); err == nil || err.Error() != "streamablehttp: "+want {
			if h != nil {
				_ = h.Close()
			}
			t.Errorf("NewHandler: %v, want %q", err, "streamablehttp: "+want)
		}
		if s, err := streamablehttp.Listen(rt, opt); err == nil || err.Error() != "streamablehttp: "+want {
			if s != nil {
				_ = s.Close()
			}
			t.Errorf("Listen: %v, want %q", err, "streamablehttp: "+want)
		}
	}
	if s, err := streamablehttp.Listen(rt, streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{DrainTimeout: -1})); err == nil || err.Error() != "streamablehttp: WithListenerLimits: DrainTimeout must not be negative" {
		if s != nil {
			_ = s.Close()
		}
		t.Errorf("Listen: %v", err)
	}
}

func TestHandlerCloseCancelsRequestsInFlight(t *testing.T) {
	g := newGate()
	h := newHandler(t, testRuntime(t, g))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := mount(t, h, mux)
	done := make(chan *testfixture.HTTPReply, 1)
	go func() { done <- testfixture.PostMCP(t, nil, ts.URL+"/mcp", call(1, "hold", nil), nil) }()
	waitFor(t, g.entered)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, g.cancelled)
	if r := <-done; r.Status != http.StatusServiceUnavailable {
		t.Fatalf("request in flight at Close: %d %s", r.Status, r.Body)
	}
	if r := testfixture.PostMCP(t, nil, ts.URL+"/mcp", discover(2), nil); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("request after Close: %d", r.Status)
	}
}

func TestHandlerOverHTTP2(t *testing.T) {
	g := newGate()
	h := newHandler(t, testRuntime(t, g))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewUnstartedServer(mux)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = h.Close() })
	client := ts.Client()
	req, _ := testfixture.NewMCPRequest(context.Background(), ts.URL+"/mcp", discover(1))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if reply := testfixture.ReadHTTPReply(t, resp, "server/discover"); resp.ProtoMajor != 2 || reply.Status != 200 {
		t.Fatalf("%s %d", resp.Proto, reply.Status)
	}
	resp.Body.Close()

	r := testfixture.PostMCP(t, client, ts.URL+"/mcp", progressCall(1, "progress"), nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/event-stream" || len(r.Frames) != 4 {
		t.Fatalf("progress over HTTP/2: %d %s", r.Status, r.Body)
	}
	// A cancelled stream cancels the request at once.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := testfixture.NewMCPRequest(ctx, ts.URL+"/mcp", call(2, "hold", nil))
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	waitFor(t, g.entered)
	cancel()
	if id := waitFor(t, g.cancelled); id != "2" {
		t.Fatalf("cancelled %s", id)
	}
	<-errc
}

func TestPrincipalReachesTheAuthorizationHook(t *testing.T) {
	seen := make(chan any, 8)
	rt, err := dispatch.New(mcp.Implementation{Name: "authz", Version: "1"}, dispatch.WithLogger(quiet()),
		dispatch.WithAuthorizer(dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
			if a.Phase != dispatch.PhaseInvocation {
				return nil
			}
			seen <- a.Info.Principal
			if a.Name == "admin-only" && a.Info.Principal != "root" {
				return &jsonrpc.Error{Code: -31001, Message: "Forbidden for this user"}
			}
			return nil
		})),
		dispatch.WithTool(mcp.Tool{Name: "admin-only"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("secret"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(h))
	ts := mount(t, h, mux)
	r := testfixture.PostMCP(t, nil, ts.URL+"/mcp", call(1, "admin-only", nil), setHeader("Authorization", "Bearer s3cret"))
	// The application's own refusal code is not a transport failure: 200.
	if r.Status != 200 || r.Last().Error == nil || r.Last().Error.Code != -31001 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if p := <-seen; p != "alice" {
		t.Fatalf("the hook saw principal %v", p)
	}
}
