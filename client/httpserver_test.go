package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// wireServer is our Streamable HTTP transport (streamablehttp.Handler)
// serving the test runtime, behind a wrapper that records the headers of
// every request.
type wireServer struct {
	h *streamablehttp.Handler

	mu      sync.Mutex
	headers []http.Header
}

func (s *wireServer) seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

func (s *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	s.h.ServeHTTP(w, r)
}

func newWireServer(t testing.TB) *wireServer {
	t.Helper()
	h, err := streamablehttp.NewHandler(mustRuntime(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing the handler: %v", err)
		}
	})
	return &wireServer{h: h}
}

// startWireServer serves the test runtime on 127.0.0.1 through the
// handler, and returns the MCP endpoint's URL.
func startWireServer(t testing.TB) (*wireServer, string) {
	ws := newWireServer(t)
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	return ws, srv.URL + "/mcp"
}

func httpTransport(t testing.TB) client.Transport {
	_, url := startWireServer(t)
	return &client.HTTPTransport{URL: url}
}

// listenerTransport uses the native listener.
func listenerTransport(t testing.TB) client.Transport {
	srv, err := streamablehttp.Listen(mustRuntime(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutting the listener down: %v", err)
		}
	})
	return &client.HTTPTransport{URL: srv.URL()}
}
