package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/stdio"
)

// The test binary doubles as the stdio servers the bridge runs: a snodo
// server (2026-07-28) or a hand-written initialize-era server.
const childEnv = "STDIOBRIDGE_TEST_CHILD"

// cancelSocketEnv names a unix socket the snodo test server dials when a
// call to "block" starts and when it is cancelled, so that tests can see
// both.
const cancelSocketEnv = "STDIOBRIDGE_TEST_CANCEL_SOCKET"

// tell sends word to the test's socket, if there is one.
func tell(word string) {
	path := os.Getenv(cancelSocketEnv)
	if path == "" {
		return
	}
	if conn, err := net.Dial("unix", path); err == nil {
		_, _ = conn.Write([]byte(word))
		_ = conn.Close()
	}
}

// runTestChild runs the server childEnv names and returns its exit status,
// or -1 when the process is not a test child.
func runTestChild() int {
	switch os.Getenv(childEnv) {
	case "snodo":
		if err := serveSnodo(); err != nil {
			fmt.Fprintln(os.Stderr, "test child:", err)
			return 1
		}
		return 0
	case "session":
		serveSessionEra()
		return 0
	}
	return -1
}

func serveSnodo() error {
	textSchema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	rt, err := dispatch.New(dispatch.Implementation{Name: "bridge-test", Version: "1"},
		dispatch.WithLogging(),
		dispatch.WithTool(dispatch.Tool{Name: "echo", InputSchema: textSchema}, func(_ context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Arguments, &args); err != nil {
				return nil, err
			}
			return dispatch.TextResult(args.Text), nil
		}),
		dispatch.WithTool(dispatch.Tool{Name: "progress"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			for i := 1; i <= 2; i++ {
				if err := dispatch.ReportProgress(ctx, dispatch.Progress{Progress: float64(i), Total: 2}); err != nil {
					return nil, err
				}
			}
			dispatch.Logger(ctx).Info("done")
			return dispatch.TextResult("finished"), nil
		}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "region",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`),
		}, func(context.Context, *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			return dispatch.TextResult("ok"), nil
		}),
		dispatch.WithTool(dispatch.Tool{Name: "block"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			tell("started")
			<-ctx.Done()
			tell("cancelled")
			return nil, ctx.Err()
		}),
	)
	if err != nil {
		return err
	}
	return stdio.Serve(context.Background(), rt)
}

// serveSessionEra is a minimal initialize-era server: it answers
// initialize; after notifications/initialized it sends a log message
// that belongs to no request; a tools/call makes it ask the client for a
// sampling (a server-to-client request) and answer with what came back.
func serveSessionEra() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	var waitingCall json.RawMessage
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo": map[string]any{"name": "session-test", "version": "1"},
			}})
		case m.Method == "notifications/initialized":
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "hello"}})
		case m.Method == "tools/call":
			waitingCall = m.ID
			send(map[string]any{"jsonrpc": "2.0", "id": "s-1", "method": "sampling/createMessage", "params": map[string]any{
				"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10,
			}})
		case m.Method == "" && string(m.ID) == `"s-1"` && waitingCall != nil:
			var r struct {
				Model string `json:"model"`
			}
			_ = json.Unmarshal(m.Result, &r)
			send(map[string]any{"jsonrpc": "2.0", "id": waitingCall, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "model " + r.Model}},
			}})
			waitingCall = nil
		case m.Method != "" && len(m.ID) > 0:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
		}
	}
}

// awaitWord accepts one connection on the unix socket and reads it.
func awaitWord(ln net.Listener, within time.Duration) (string, error) {
	if ul, ok := ln.(*net.UnixListener); ok {
		_ = ul.SetDeadline(time.Now().Add(within))
	}
	conn, err := ln.Accept()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(within))
	buf := make([]byte, 64)
	n, _ := conn.Read(buf)
	return string(buf[:n]), nil
}
