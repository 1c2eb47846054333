package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// BenchmarkTypedToolCall measures a validated, typed tools/call through
// the whole pipeline (admission, validation, decoding, shaping, encoding).
func BenchmarkTypedToolCall(b *testing.B) {
	rt := benchRuntime(b)
	raw := benchRequest(b, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{"city": "Lisbon", "days": 3}})
	b.ReportAllocs()
	for b.Loop() {
		req := decodeRequest(b, raw)
		if out := rt.Dispatch(context.Background(), req); out.ErrorCode != 0 {
			b.Fatalf("error %d", out.ErrorCode)
		}
	}
}

// BenchmarkRequestStateRoundTrip measures opening a sealed requestState on
// a retry (admission) and sealing a new one (the next round).
func BenchmarkRequestStateRoundTrip(b *testing.B) {
	rt := mustNew(b, dispatch.WithTool(mcp.Tool{Name: "step"}, func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &dispatch.InputRequired{State: []byte("round")}
	}))
	first := rt.Dispatch(context.Background(), decodeRequest(b, benchRequest(b, "tools/call", map[string]any{"name": "step"})))
	var resp struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal(first.Frame, &resp); err != nil || resp.Result.RequestState == "" {
		b.Fatalf("no state: %s", first.Frame)
	}
	raw := benchRequest(b, "tools/call", map[string]any{"name": "step", "requestState": resp.Result.RequestState})
	b.ReportAllocs()
	for b.Loop() {
		if out := rt.Dispatch(context.Background(), decodeRequest(b, raw)); out.ErrorCode != 0 {
			b.Fatalf("error %d: %s", out.ErrorCode, out.Frame)
		}
	}
}

func benchRuntime(b *testing.B) *dispatch.Runtime {
	return mustNew(b, dispatch.WithTypedTool(mcp.Tool{Name: "weather"}, func(_ context.Context, in weatherIn) (weatherOut, error) {
		return weatherOut{City: in.City, Temperature: 20}, nil
	}))
}

func benchRequest(b *testing.B, method string, params map[string]any) []byte {
	b.Helper()
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}}
	for k, v := range params {
		p[k] = v
	}
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkLegacyTypedToolCall is BenchmarkTypedToolCall for an
// initialize-era client: selection by the session's negotiated version,
// admission, and the 2025 shaping.
func BenchmarkLegacyTypedToolCall(b *testing.B) {
	rt := benchRuntime(b)
	sess := dispatch.NewSession()
	init := decodeRequest(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
	init.Session = sess
	if out := rt.Dispatch(context.Background(), init); out.NegotiatedVersion != "2025-11-25" {
		b.Fatalf("initialize: %s", out.Frame)
	}
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Lisbon","days":3}}}`)
	b.ReportAllocs()
	for b.Loop() {
		req := decodeRequest(b, raw)
		req.Session = sess
		if out := rt.Dispatch(context.Background(), req); out.ErrorCode != 0 {
			b.Fatalf("error %d: %s", out.ErrorCode, out.Frame)
		}
	}
}
