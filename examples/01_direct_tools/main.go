// Command 01_direct_tools defines a server's tools and calls them directly,
// with no process, transport or actor: a dispatch.Runtime is an immutable
// value that runs one JSON-RPC message in the calling goroutine. This is
// how tests, CLIs and embedding hosts use a server.
//
//	go run ./examples/01_direct_tools          # prints a short session
//	go run ./examples/01_direct_tools -check   # asserts it, exits non-zero on failure
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func main() { excheck.MainWith(newRuntime, checks, printSession) }

// printSession sends a short session, written out as a client would send
// it, and prints each request and its response.
func printSession(ctx context.Context, rt *dispatch.Runtime) error {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"reverse","arguments":{"text":"stressed"},"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"divide","arguments":{"a":1,"b":0},"_meta":` + meta + `}}`,
	} {
		fmt.Println("->", line)
		fmt.Println("<-", string(dispatchLine(ctx, rt, line)))
	}
	return nil
}

// meta is what every 2026-07-28 request carries: the protocol version and
// the client's capabilities (none here).
const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// newRuntime defines the server. Invalid definitions (a bad tool name, a
// malformed schema, a duplicate) fail here, never at request time.
func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "direct-tools", Version: "1.0.0"},
		dispatch.WithInstructions("reverse reverses text; divide divides a by b."),
		dispatch.WithTool(mcp.Tool{
			Name:        "reverse",
			Description: "Reverses the text it is given.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, reverse),
		dispatch.WithTool(mcp.Tool{
			Name:        "divide",
			Description: "Divides a by b.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		}, divide),
	)
}

func reverse(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	r := []rune(args.Text)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return mcp.TextResult(string(r)), nil
}

func divide(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{ A, B float64 }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	if args.B == 0 {
		// A plain error becomes an isError result the model can read
		// and correct itself from; it is not a protocol error.
		return nil, errors.New("cannot divide by zero")
	}
	return mcp.TextResult(fmt.Sprint(args.A / args.B)), nil
}

// dispatchLine decodes one line as the transports do (bounded) and runs it.
func dispatchLine(ctx context.Context, rt *dispatch.Runtime, line string) []byte {
	msg, err := jsonrpc.Decode([]byte(line))
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && de.Reply {
			// The answer to a message that cannot be served: its id when
			// it was readable, and the error.
			frame := map[string]any{"jsonrpc": "2.0", "error": de.Err}
			if de.ID.IsValid() {
				frame["id"] = de.ID
			}
			b, _ := json.Marshal(frame)
			return b
		}
		return nil
	}
	return rt.Dispatch(ctx, &dispatch.Request{Message: msg}).Frame
}

// contains is a tiny helper for the checks.
func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
