package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// echoCall is the load harness's request.
var echoCall = []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo",` +
	`"arguments":{"text":"The quick brown fox jumps over the lazy dog, 0123456789."},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}}}`)

// echoSchema is the load harness's schema for echo; with it every call's
// arguments are validated before the handler runs.
const echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// echoBenchRuntime serves echo without an input schema (no validation).
func echoBenchRuntime(b *testing.B) *dispatch.Runtime { return echoRuntimeWith(b, nil) }

// echoRuntimeWith serves echo with the given input schema.
func echoRuntimeWith(b *testing.B, schema json.RawMessage) *dispatch.Runtime {
	b.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "bench", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "echo", InputSchema: schema}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(a.Text), nil
		}),
	)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

var wantText = []byte(`"text":"The quick brown fox jumps over the lazy dog, 0123456789."`)

// BenchmarkAdmitToolsCall is admission alone: dialect selection, _meta
// parsing and method resolution of a decoded tools/call.
func BenchmarkAdmitToolsCall(b *testing.B) {
	rt := echoBenchRuntime(b)
	msg, err := jsonrpc.Decode(echoCall)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		call, out := rt.Admit(&dispatch.Request{Message: msg, Transport: dispatch.TransportStdio})
		if call == nil {
			b.Fatalf("not admitted: %s", out.Frame)
		}
	}
}

// BenchmarkDecodeAdmit is what a connection's reader goroutine does per
// frame before handing the call to an actor.
func BenchmarkDecodeAdmit(b *testing.B) {
	rt := echoBenchRuntime(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(echoCall)))
	for b.Loop() {
		msg, err := jsonrpc.Decode(echoCall)
		if err != nil {
			b.Fatal(err)
		}
		if call, out := rt.Admit(&dispatch.Request{Message: msg, Transport: dispatch.TransportStdio}); call == nil {
			b.Fatalf("not admitted: %s", out.Frame)
		}
	}
}

// BenchmarkExecuteEcho is what an executor worker does per request: the
// operation, the tool, shaping and encoding of an admitted call; schema
// adds validation of the arguments against echo's input schema.
func BenchmarkExecuteEcho(b *testing.B) {
	for _, c := range []struct {
		name   string
		schema json.RawMessage
	}{{"noschema", nil}, {"schema", json.RawMessage(echoSchema)}} {
		b.Run(c.name, func(b *testing.B) {
			rt := echoRuntimeWith(b, c.schema)
			msg, err := jsonrpc.Decode(echoCall)
			if err != nil {
				b.Fatal(err)
			}
			call, out := rt.Admit(&dispatch.Request{Message: msg, Transport: dispatch.TransportStdio})
			if call == nil {
				b.Fatalf("not admitted: %s", out.Frame)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if out := rt.Execute(ctx, call); !bytes.Contains(out.Frame, wantText) {
					b.Fatalf("unexpected frame %s", out.Frame)
				}
			}
		})
	}
}

// BenchmarkDispatchEcho is a whole request without a transport: decode,
// admit, execute, encode, in the calling goroutine.
func BenchmarkDispatchEcho(b *testing.B) {
	rt := echoBenchRuntime(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(echoCall)))
	for b.Loop() {
		msg, err := jsonrpc.Decode(echoCall)
		if err != nil {
			b.Fatal(err)
		}
		if out := rt.Dispatch(ctx, &dispatch.Request{Message: msg, Transport: dispatch.TransportStdio}); !bytes.Contains(out.Frame, wantText) {
			b.Fatalf("unexpected frame %s", out.Frame)
		}
	}
}
