// Command server-gosdk is the benchmark server on
// github.com/modelcontextprotocol/go-sdk: echo and sleep over stdio
// (default) or stateless Streamable HTTP with JSON responses (-http).
// Arguments are validated against the schema the typed AddTool infers.
package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snodo-go/snodo/bench/internal/benchtool"
)

func main() {
	f := benchtool.ParseFlags()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-gosdk", Version: "1.0.0"}, nil)
	// The typed AddTool infers the input schema from the argument struct
	// and validates every call against it, as the other two servers do.
	mcp.AddTool(s, &mcp.Tool{Name: benchtool.EchoTool}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: benchtool.SleepTool}, sleep)
	if err := benchtool.ServeStats(); err != nil {
		benchtool.Fatal(err)
	}
	defer benchtool.StartProfile()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if f.HTTP != "" {
		err = serveHTTP(ctx, s, f.HTTP)
	} else {
		err = s.Run(ctx, &mcp.StdioTransport{})
	}
	if err != nil && ctx.Err() == nil {
		benchtool.Fatal(err)
	}
}

func serveHTTP(ctx context.Context, s *mcp.Server, addr string) error {
	ln, err := benchtool.ListenHTTP(addr)
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

func echo(_ context.Context, _ *mcp.CallToolRequest, a benchtool.EchoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
}

func sleep(ctx context.Context, _ *mcp.CallToolRequest, a benchtool.SleepArgs) (*mcp.CallToolResult, any, error) {
	if err := benchtool.Sleep(ctx, a.MS); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: benchtool.SleptText(a.MS)}}}, nil, nil
}
