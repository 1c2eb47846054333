package streamablehttp_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// exampleRuntime is a server with one tool that greets the caller by the
// identity the application verified.
func exampleRuntime() *dispatch.Runtime {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "greet", Description: "Greets the caller."},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult(fmt.Sprintf("hello, %v", req.Info.Principal)), nil
			}))
	if err != nil {
		log.Fatal(err)
	}
	return rt
}

const exampleCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// post sends exampleCall with the headers a 2026-07-28 client sends.
func post(url, token string) (int, string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(exampleCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, strings.TrimSpace(b.String())
}

// Mount MCP in an application's own mux, behind its authentication
// middleware, which attaches the verified principal.
func ExampleNewHandler() {
	h, err := streamablehttp.NewHandler(exampleRuntime())
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer let-me-in" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(streamablehttp.ContextWithPrincipal(r.Context(), "ada")))
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth(h))
	app := httptest.NewServer(mux) // your own http.Server, TLS and timeouts
	defer app.Close()

	fmt.Println(post(app.URL+"/mcp", ""))
	status, body := post(app.URL+"/mcp", "let-me-in")
	fmt.Println(status, strings.Contains(body, "hello, ada"))
	// Output:
	// 401 unauthorized
	// 200 true
}

// Run the native listener on 127.0.0.1 with an ephemeral port.
func ExampleListen() {
	srv, err := streamablehttp.Listen(exampleRuntime())
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Shutdown(context.Background())

	status, body := post(srv.URL(), "")
	fmt.Println(strings.HasPrefix(srv.URL(), "http://127.0.0.1:"), status, strings.Contains(body, "hello, <nil>"))
	// Output: true 200 true
}

// Serve MCP from a server that is not net/http: describe the request as a
// plain value and write what Handle returns.
func ExampleHandler_Handle() {
	h, err := streamablehttp.NewHandler(exampleRuntime())
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	resp, stream := h.Handle(context.Background(), &streamablehttp.Request{
		Method: http.MethodPost,
		Path:   "/mcp",
		Header: http.Header{
			"Content-Type":         {"application/json"},
			"Accept":               {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2026-07-28"},
			"Mcp-Method":           {"tools/call"},
			"Mcp-Name":             {"greet"},
		},
		ContentLength: int64(len(exampleCall)),
		Body:          strings.NewReader(exampleCall),
		Peer:          "192.0.2.7:50000",
		Principal:     "grace",
	})
	if stream != nil {
		defer stream.Close() // write stream.Next() chunks until io.EOF
		return
	}
	fmt.Println(resp.Status, resp.ContentType, strings.Contains(string(resp.Body), "hello, grace"))
	// Output: 200 application/json true
}
