// Command server-mcpgo is the benchmark server on
// github.com/mark3labs/mcp-go: echo and sleep over stdio (default) or
// stateless Streamable HTTP (-http; replies are application/json unless a
// handler sends notifications, which these do not).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/snodo-go/snodo/bench/internal/benchtool"
)

func main() {
	workers := flag.Int("workers", 0, "stdio tool-call worker pool size (0: the library default, 5)")
	queue := flag.Int("queue", 0, "stdio tool-call queue size (0: the library default, 100)")
	f := benchtool.ParseFlags()
	// Arguments are validated against the same raw schemas the snodo-go
	// server declares, as the other two servers validate theirs.
	s := server.NewMCPServer("bench-mcpgo", "1.0.0", server.WithToolCapabilities(true), server.WithInputSchemaValidation())
	s.AddTool(mcp.NewToolWithRawSchema(benchtool.EchoTool, "", json.RawMessage(benchtool.EchoSchema)), echo)
	s.AddTool(mcp.NewToolWithRawSchema(benchtool.SleepTool, "", json.RawMessage(benchtool.SleepSchema)), sleep)
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
		var opts []server.StdioOption
		if *workers > 0 {
			opts = append(opts, server.WithWorkerPoolSize(*workers))
		}
		if *queue > 0 {
			opts = append(opts, server.WithQueueSize(*queue))
		}
		opts = append(opts, server.WithErrorLogger(log.New(os.Stderr, "", 0)))
		ss := server.NewStdioServer(s)
		for _, o := range opts {
			o(ss)
		}
		err = ss.Listen(ctx, os.Stdin, os.Stdout)
	}
	if err != nil && ctx.Err() == nil {
		benchtool.Fatal(err)
	}
}

func serveHTTP(ctx context.Context, s *server.MCPServer, addr string) error {
	ln, err := benchtool.ListenHTTP(addr)
	if err != nil {
		return err
	}
	h := server.NewStreamableHTTPServer(s, server.WithStateLess(true))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

func sleep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ms, err := req.RequireInt("ms")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if err := benchtool.Sleep(ctx, int64(ms)); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(benchtool.SleptText(int64(ms))), nil
}
