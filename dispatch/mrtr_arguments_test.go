package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// A client that omits arguments on the first round and sends {} (or null)
// on the retry is making the same call: the sealed state still opens.
func TestRetryWithEmptyArgumentsOpensTheState(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "s", Version: "1"},
		dispatch.WithTool(mcp.Tool{Name: "ask"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, ok := req.Input.Elicitation("q"); ok {
				return mcp.TextResult("answered"), nil
			}
			return nil, &dispatch.InputRequired{
				Requests: map[string]mcp.InputRequest{"q": mcp.ElicitForm("?", json.RawMessage(`{"type":"object","properties":{}}`))},
				State:    []byte("s"),
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	caps := map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}
	first := testfixture.Dispatch(t, rt, testkit.Request(1, "tools/call", map[string]any{"name": "ask", "_meta": caps}))
	var r struct {
		State string `json:"requestState"`
	}
	if err := json.Unmarshal(first.Result, &r); err != nil || r.State == "" {
		t.Fatalf("first round: %s", first.Raw)
	}
	answer := map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{}}}
	for i, args := range []any{map[string]any{}, nil} {
		p := map[string]any{"name": "ask", "_meta": caps, "inputResponses": answer, "requestState": r.State, "arguments": args}
		f := testfixture.Dispatch(t, rt, testkit.Request(2+i, "tools/call", p))
		if f.Error != nil {
			t.Fatalf("retry with arguments %v refused: %s", args, f.Raw)
		}
	}
	// Different arguments are a different call.
	p := map[string]any{"name": "ask", "_meta": caps, "inputResponses": answer, "requestState": r.State, "arguments": map[string]any{"x": 1}}
	if f := testfixture.Dispatch(t, rt, testkit.Request(9, "tools/call", p)); f.Error == nil || f.Error.Code != -32602 {
		t.Fatalf("retry with other arguments: %s", f.Raw)
	}
}
