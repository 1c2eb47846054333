package streamablehttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// endpoint is a running MCP endpoint: the native listener, or a Handler
// mounted in a net/http mux under httptest.Server.
type endpoint struct {
	url      string
	addr     string // host:port for raw connections
	sup      *supervisor.Supervisor
	kind     supervisor.Kind             // the node requests live under
	shutdown func(context.Context) error // graceful drain
}

type target struct {
	name  string
	start func(t *testing.T, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint
	// startWith starts the endpoint under sup, which the caller closes.
	startWith func(t *testing.T, sup *supervisor.Supervisor, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint
}

// targets are the two ways in. Every shared test runs against both, with
// the same expectations: the rules exist once.
var targets = []target{
	{"listener", startListener, startListenerWith},
	{"handler", startHandler, startHandlerWith},
}

func startListener(t *testing.T, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint {
	t.Helper()
	srv := testfixture.StartHTTP(t, rt, listenerOptions(opts)...)
	return &endpoint{url: srv.URL(), addr: srv.Addr().String(), sup: srv.Sup, kind: "listener", shutdown: srv.Shutdown}
}

func startListenerWith(t *testing.T, sup *supervisor.Supervisor, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint {
	t.Helper()
	srv := testfixture.StartHTTPWith(t, sup, rt, listenerOptions(opts)...)
	return &endpoint{url: srv.URL(), addr: srv.Addr().String(), sup: sup, kind: "listener", shutdown: srv.Shutdown}
}

func startHandlerWith(t *testing.T, sup *supervisor.Supervisor, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint {
	t.Helper()
	return startHandler(t, rt, append([]streamablehttp.Option{streamablehttp.WithSupervisor(sup)}, opts...)...)
}

// startHandler mounts a Handler at the root of a mux (so its own path
// rule answers other paths) and serves it with httptest.
func startHandler(t *testing.T, rt *dispatch.Runtime, opts ...streamablehttp.Option) *endpoint {
	t.Helper()
	h, err := streamablehttp.NewHandler(rt, append([]streamablehttp.HandlerOption{streamablehttp.WithPath("/mcp")}, handlerOptions(opts)...)...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		if n := streamablehttp.HandlerSupervisor(h).UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
	})
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing handler: %v", err)
		}
	})
	return &endpoint{url: ts.URL + "/mcp", addr: ts.Listener.Addr().String(), sup: streamablehttp.HandlerSupervisor(h), kind: "handler", shutdown: h.Shutdown}
}

// listenerOptions and handlerOptions pass options of both to one.
func listenerOptions(opts []streamablehttp.Option) []streamablehttp.ListenerOption {
	out := make([]streamablehttp.ListenerOption, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

func handlerOptions(opts []streamablehttp.Option) []streamablehttp.HandlerOption {
	out := make([]streamablehttp.HandlerOption, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

// forEachTarget runs f as a subtest against both targets.
func forEachTarget(t *testing.T, f func(t *testing.T, tg target)) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) { f(t, tg) })
	}
}
