// Command 21_http_handler mounts MCP in an application's own net/http
// stack: its mux, its bearer-token middleware, its health endpoint and its
// http.Server timeouts, with MCP at /mcp and the live supervision tree at
// /debug/tree (a page in a browser, JSON or text otherwise).
//
//	go run ./examples/21_http_handler -addr 127.0.0.1:8080 -token dev-token
//
// With -check it starts on an ephemeral port, exercises the application
// over real HTTP (health, refused and accepted MCP requests, the
// principal reaching a tool, the supervision tree as JSON, as the page
// and as its event stream, a cross-site action refused) and exits
// non-zero on any failure:
//
//	go run ./examples/21_http_handler -check
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func main() {
	token := flag.String("token", "dev-token", "bearer token accepted for the user \"alice\"")
	excheck.MainHTTP("127.0.0.1:8080", func(ctx context.Context, logger *slog.Logger, addr string, check bool) error {
		return run(ctx, logger, addr, *token, check)
	})
}

// run serves the application on addr until ctx ends or, with check,
// exercises it over HTTP with token and returns the first failure.
func run(ctx context.Context, logger *slog.Logger, addr, token string, check bool) error {
	rt, err := dispatch.New(
		mcp.Implementation{Name: "app-with-mcp", Version: "0.1.0"},
		dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "whoami", Description: "Returns the authenticated user."},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				// The principal comes from the application's middleware,
				// never from the MCP message.
				return mcp.TextResult(fmt.Sprint(req.Info.Principal)), nil
			}),
	)
	if err != nil {
		return err
	}
	// One supervision tree for the application's MCP endpoints; several
	// handlers (and a stdio transport) could share it and its executor.
	sup, err := supervisor.New(rt)
	if err != nil {
		return err
	}
	defer sup.Close(context.Background())
	mcp, err := streamablehttp.NewHandler(rt, streamablehttp.WithSupervisor(sup))
	if err != nil {
		return err
	}

	// The live supervision tree: a page in a browser (updated as the
	// tree changes), JSON or text otherwise. Its actions (cancel a
	// request, stop a connection) are off unless turned on, here for
	// operators on this machine only.
	debug, err := sup.DebugHandler(supervisor.WithActions(loopbackOnly))
	if err != nil {
		return err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.Handle("/debug/tree", debug)
	mux.Handle("/mcp", bearer(map[string]string{token: "alice"}, mcp))

	server := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		// No WriteTimeout: it would cut event streams. The handler bounds
		// each event-stream write itself.
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()

	if check {
		err = checks("http://"+ln.Addr().String(), token)
	} else {
		<-ctx.Done()
	}

	// Stop: MCP drains first (streams complete, requests in flight
	// finish, new ones get 503), then the tree (which ends the debug
	// page's streams), then the server.
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = errors.Join(err, mcp.Shutdown(stopCtx), sup.Close(stopCtx), server.Shutdown(stopCtx))
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// bearer is the application's own authentication: it maps a bearer token
// to a user and attaches that user to the request for the MCP handler.
// This is not the MCP authorization flow; for an OAuth 2.1 resource
// server (protected resource metadata, JWT or introspected tokens, the
// 401 and 403 challenges, scopes per tool), wrap the handler with the
// middleware of the github.com/snodo-go/snodo/oauth module instead, as
// examples/25_oauth does (docs/authorization.md compares the two).
func bearer(users map[string]string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		user, known := users[tok]
		if !ok || !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(streamablehttp.ContextWithPrincipal(r.Context(), user)))
	})
}

// loopbackOnly authorizes the debug page's actions for clients on this
// machine.
func loopbackOnly(r *http.Request) error {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return errors.New("debug actions are for local operators")
	}
	return nil
}

// post sends one 2026-07-28 request with the mirrored headers.
func post(url, token, method string, params map[string]any) (int, []byte, error) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func get(url string) (int, []byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func checks(base, token string) error {
	if status, _, err := get(base + "/healthz"); err != nil || status != 200 {
		return fmt.Errorf("health: %d %v", status, err)
	}
	if status, _, err := post(base+"/mcp", "", "server/discover", nil); err != nil || status != http.StatusUnauthorized {
		return fmt.Errorf("MCP without a token: want 401, got %d %v", status, err)
	}
	if status, _, err := post(base+"/mcp", "wrong", "server/discover", nil); err != nil || status != http.StatusUnauthorized {
		return fmt.Errorf("MCP with a wrong token: want 401, got %d %v", status, err)
	}
	status, body, err := post(base+"/mcp", token, "server/discover", nil)
	if err != nil || status != 200 || !bytes.Contains(body, []byte(`"supportedVersions"`)) {
		return fmt.Errorf("server/discover: %d %s %v", status, body, err)
	}
	status, body, err = post(base+"/mcp", token, "tools/call", map[string]any{"name": "whoami"})
	if err != nil || status != 200 || !bytes.Contains(body, []byte(`"text":"alice"`)) {
		return fmt.Errorf("tools/call whoami: %d %s %v", status, body, err)
	}
	status, body, err = get(base + "/debug/tree")
	var tree supervisor.Node
	if err != nil || status != 200 || json.Unmarshal(body, &tree) != nil || tree.Count("handler") != 1 {
		return fmt.Errorf("supervision tree: %d %s %v", status, body, err)
	}
	if err := checkPage(base + "/debug/tree"); err != nil {
		return err
	}
	fmt.Println("health, authentication, discover, principal, tree and its page: ok")
	return nil
}

// checkPage reads the tree's page as a browser would, its first live
// update, and a cross-site action's refusal.
func checkPage(url string) error {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!bytes.Contains(page, []byte(`data-kind="handler"`)) {
		return fmt.Errorf("tree page: %d %v", resp.StatusCode, err)
	}
	resp, err = http.Get(url + "?format=events")
	if err != nil {
		return err
	}
	// The first event is the tree as it is now; the stream then stays
	// open for the next ones.
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	for err == nil && !strings.HasPrefix(line, "event: ") {
		line, err = br.ReadString('\n')
	}
	resp.Body.Close()
	if err != nil || line != "event: tree\n" {
		return fmt.Errorf("tree stream: %q %v", line, err)
	}
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader("action=stop&id=snodo/handler$1"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://elsewhere.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		return fmt.Errorf("a cross-site action: %d, want 403", resp.StatusCode)
	}
	return nil
}
