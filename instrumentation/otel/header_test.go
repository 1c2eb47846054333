package otel_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// headerParent is a traceparent sent in the HTTP headers, with another
// trace id than parent (the _meta one).
const headerParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// Over Streamable HTTP, the call's span is a child of the traceparent
// header when _meta carries none, of _meta's when both do, and a root
// when the header is malformed.
func TestSpanParentFromHTTPHeaders(t *testing.T) {
	f := newFixture(t)
	rt, err := dispatch.New(mcp.Implementation{Name: "otel", Version: "1"},
		dispatch.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		dispatch.WithInstrumentation(f.sink),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("hi"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	post := func(id int, meta map[string]any, traceparent string) {
		t.Helper()
		params := map[string]any{"name": "echo"}
		if meta != nil {
			params["_meta"] = meta
		}
		frame := testkit.Request(id, "tools/call", params)
		header := testfixture.HTTPHeaders(frame)
		header.Set("Traceparent", traceparent)
		header.Set("Tracestate", "congo=2")
		resp, stream := h.Handle(context.Background(), &streamablehttp.Request{
			Method: "POST", Path: "/", Host: "127.0.0.1", Header: header,
			ContentLength: int64(len(frame)), Body: bytes.NewReader(frame),
		})
		if stream != nil || resp.Status != 200 {
			t.Fatalf("call %d: %+v", id, resp)
		}
	}
	post(1, nil, headerParent)
	post(2, map[string]any{"traceparent": parent, "tracestate": "rojo=1"}, headerParent)
	post(3, nil, "00-"+headerParent[3:35]+"-zz")

	spans := f.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	byID := map[string]trace.SpanContext{}
	for _, s := range spans {
		byID[attr(s.Attributes(), "jsonrpc.request.id")] = s.Parent()
		if s.Parent().IsValid() && s.SpanContext().TraceID() != s.Parent().TraceID() {
			t.Fatalf("span %s is in another trace than its parent", s.Name())
		}
	}
	if p := byID["1"]; p.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || p.SpanID().String() != "b7ad6b7169203331" || !p.IsRemote() || p.TraceState().Get("congo") != "2" {
		t.Fatalf("header only: parent %v, want the header's traceparent", p)
	}
	if p := byID["2"]; p.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || p.SpanID().String() != "00f067aa0ba902b7" || p.TraceState().Get("rojo") != "1" {
		t.Fatalf("both: parent %v, want _meta's traceparent", p)
	}
	if p := byID["3"]; p.IsValid() {
		t.Fatalf("malformed header: parent %v, want a root span", p)
	}
}

// A span already in the context (an HTTP middleware's, itself a child of
// the headers) stays the parent over the headers' trace context; _meta's
// still wins over it.
func TestContextSpanWinsOverHeaders(t *testing.T) {
	f := newFixture(t)
	rt, err := dispatch.New(mcp.Implementation{Name: "otel", Version: "1"},
		dispatch.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		dispatch.WithInstrumentation(f.sink),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("hi"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, outer := f.tp.Tracer("middleware").Start(context.Background(), "POST /mcp")
	defer outer.End()
	dispatchWith := func(id int, meta map[string]any) {
		params := map[string]any{"name": "echo"}
		if meta != nil {
			params["_meta"] = meta
		}
		frame := testkit.Request(id, "tools/call", params)
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			t.Fatal(err)
		}
		header := testfixture.HTTPHeaders(frame)
		header.Set("Traceparent", headerParent)
		out := rt.Dispatch(ctx, &dispatch.Request{Message: msg, Transport: dispatch.TransportHTTP, Header: header})
		if out.ErrorCode != 0 {
			t.Fatalf("call %d: %s", id, out.Frame)
		}
	}
	dispatchWith(1, nil)
	dispatchWith(2, map[string]any{"traceparent": parent})
	spans := f.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	if p := spans[0].Parent(); p.SpanID() != outer.SpanContext().SpanID() {
		t.Fatalf("header trace with a span in the context: parent %v, want the context's span", p)
	}
	if p := spans[1].Parent(); p.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("_meta trace with a span in the context: parent %v, want _meta's", p)
	}
}
