// Command quickstart is a stdio MCP server with a few tools. Try it:
//
//	printf '%s\n%s\n' \
//	  '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
//	  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
//	  | go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/stdio"
)

func main() {
	// Logs go to standard error: standard output carries protocol only.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rt, err := newRuntime(logger)
	if err != nil {
		logger.Error("invalid server definition", "error", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := stdio.Serve(ctx, rt); err != nil {
		logger.Error("stdio transport ended", "error", err)
		os.Exit(1)
	}
}

func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	return dispatch.New(
		mcp.Implementation{Name: "quickstart", Version: "0.1.0", Title: "snodo quickstart"},
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("Tools: echo repeats text, upper upper-cases it, sleep waits."),
		dispatch.WithTool(mcp.Tool{
			Name:        "echo",
			Description: "Returns the text it is given.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(func(s string) string { return s })),
		dispatch.WithTool(mcp.Tool{
			Name:        "upper",
			Description: "Returns the text in upper case.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(strings.ToUpper)),
		dispatch.WithTool(mcp.Tool{
			Name:        "sleep",
			Description: "Waits for ms milliseconds, or until cancelled.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
		}, sleepTool),
	)
}

// textTool adapts a string function to a tool taking {"text": string}.
func textTool(f func(string) string) dispatch.ToolHandler {
	return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		return mcp.TextResult(f(args.Text)), nil
	}
}

func sleepTool(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		MS int64 `json:"ms"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	t := time.NewTimer(time.Duration(args.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return mcp.TextResult(fmt.Sprintf("slept %d ms", args.MS)), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
