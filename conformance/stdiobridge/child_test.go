package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
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
	case "scripted":
		serveScripted()
		return 0
	}
	return -1
}

// gateOpen is closed by the "open" tool of the snodo test server.
var (
	gateOpen = make(chan struct{})
	openGate sync.Once
)

func serveSnodo() error {
	textSchema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	hb := hub.New(hub.Options{})
	reg := hub.NewRegistry(hb)
	rt, err := dispatch.New(mcp.Implementation{Name: "bridge-test", Version: "1"},
		dispatch.WithClientLogging(),
		dispatch.WithCatalog(reg),
		dispatch.WithSubscriptions(hb),
		// trigger changes the tool list, which listen streams hear of.
		dispatch.WithTool(mcp.Tool{Name: "trigger"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if reg.RemoveTool("dynamic") {
				return mcp.TextResult("removed"), nil
			}
			err := reg.AddTool(mcp.Tool{Name: "dynamic"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("dynamic"), nil
			})
			return mcp.TextResult("added"), err
		}),
		dispatch.WithTool(mcp.Tool{Name: "echo", InputSchema: textSchema}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Arguments, &args); err != nil {
				return nil, err
			}
			return mcp.TextResult(args.Text), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "progress"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 2; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2}); err != nil {
					return nil, err
				}
			}
			dispatch.ClientLogger(ctx).Info("done")
			return mcp.TextResult("finished"), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name:        "region",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`),
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}),
		// gate reports progress once, then waits until "open" is called
		// (the requests share one stdio server, so one request can let
		// another go on).
		dispatch.WithTool(mcp.Tool{Name: "gate"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1}); err != nil {
				return nil, err
			}
			select {
			case <-gateOpen:
				return mcp.TextResult("through"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
		dispatch.WithTool(mcp.Tool{Name: "open"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			openGate.Do(func() { close(gateOpen) })
			return mcp.TextResult("open"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "block"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
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

// serveScripted is a hand-written 2026-07-28 stdio server whose behaviour
// the tests script, to see exactly what the bridge writes to a stdio
// server and to write what a real one would not (late frames, responses
// out of order). It answers server/discover and tools/list (so that the
// bridge's front loads), and tools/call by name:
//   - "seen": a text result naming the id and progress token it received;
//   - "hold": no answer until a call to "release", which answers every
//     held call, the last one first, then itself;
//   - "hang": no answer; when notifications/cancelled names it, it tells
//     the test's socket "cancelled <id>" and writes a response and a
//     progress notification for it all the same, which the bridge must
//     drop.
func serveScripted() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	result := func(id json.RawMessage, text string) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": text}},
		}})
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			RequestID json.RawMessage `json:"requestId"`
			Meta      struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	var held []json.RawMessage
	hanging := map[string]json.RawMessage{} // id -> progress token
	noArgs := map[string]any{"type": "object"}
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "server/discover":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"resultType": "complete", "supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{"tools": map[string]any{}},
				"ttlMs": 0, "cacheScope": "public",
			}})
		case m.Method == "tools/list":
			var tools []any
			for _, name := range []string{"seen", "hold", "release", "hang"} {
				tools = append(tools, map[string]any{"name": name, "inputSchema": noArgs})
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "public"}})
		case m.Method == "tools/call" && m.Params.Name == "seen":
			result(m.ID, fmt.Sprintf("id=%s token=%s", m.ID, m.Params.Meta.Token))
		case m.Method == "tools/call" && m.Params.Name == "hold":
			held = append(held, m.ID)
			tell("held " + string(m.ID))
		case m.Method == "tools/call" && m.Params.Name == "release":
			for i := len(held) - 1; i >= 0; i-- {
				result(held[i], "released "+string(held[i]))
			}
			held = nil
			result(m.ID, "release")
		case m.Method == "tools/call" && m.Params.Name == "hang":
			hanging[string(m.ID)] = m.Params.Meta.Token
			tell("hanging " + string(m.ID))
		case m.Method == "notifications/cancelled":
			id := string(m.Params.RequestID)
			tell("got " + m.Method + " " + id)
			token, ok := hanging[id]
			if !ok {
				continue
			}
			delete(hanging, id)
			tell("cancelled " + id)
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": token, "progress": 1}})
			result(m.Params.RequestID, "too late")
		case m.Method != "" && len(m.ID) > 0:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}
