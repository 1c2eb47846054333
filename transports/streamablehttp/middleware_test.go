package streamablehttp_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"

	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// TestListenerMiddlewareSeesEveryRequest checks the middleware option:
// the outermost middleware runs first, it can answer a path of its own,
// refuse a request before the endpoint runs, or pass it on; a path it
// passes on that is not the endpoint's still gets 404.
func TestListenerMiddlewareSeesEveryRequest(t *testing.T) {
	g := newGate()
	var order []string
	tag := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/healthz":
				_, _ = io.WriteString(w, "ok")
			case r.Header.Get("X-Key") != "open":
				http.Error(w, "refused", http.StatusUnauthorized)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
	srv := testfixture.StartHTTP(t, testRuntime(t, g),
		streamablehttp.WithHTTPMiddleware(tag("outer")), streamablehttp.WithHTTPMiddleware(tag("inner")),
		streamablehttp.WithHTTPMiddleware(guard))
	base := strings.TrimSuffix(srv.URL(), "/mcp")

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Fatalf("path served by the middleware: %d %q", resp.StatusCode, body)
	}
	if strings.Join(order, ",") != "outer,inner" {
		t.Fatalf("middleware order %v", order)
	}

	if r := testfixture.PostMCP(t, nil, srv.URL(), call(1, "hold", nil), nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("refused by the middleware: %d %s", r.Status, r.Body)
	}
	select {
	case <-g.entered:
		t.Fatal("a refused request reached its tool")
	default:
	}
	open := func(r *http.Request) { r.Header.Set("X-Key", "open") }
	if r := testfixture.PostMCP(t, nil, srv.URL(), call(2, "echo", map[string]any{"text": "x"}), open); r.Status != http.StatusOK {
		t.Fatalf("passed on: %d %s", r.Status, r.Body)
	}
	if r := testfixture.PostMCP(t, nil, base+"/other", call(3, "echo", map[string]any{"text": "x"}), open); r.Status != http.StatusNotFound {
		t.Fatalf("another path passed on: %d %s", r.Status, r.Body)
	}
}

// TestListenerServesOnTheApplicationsListener checks WithListener: the
// server serves on the given listener, reports its address, and closes it
// when it stops.
func TestListenerServesOnTheApplicationsListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streamablehttp.Listen(testRuntime(t, nil), streamablehttp.WithListener(ln))
	if err != nil {
		t.Fatal(err)
	}
	if srv.URL() != "http://"+ln.Addr().String()+"/mcp" {
		t.Fatalf("URL %s, listener %s", srv.URL(), ln.Addr())
	}
	if r := testfixture.PostMCP(t, nil, srv.URL(), discover(1), nil); r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Fatal("the listener is still open after Close")
	}
}
