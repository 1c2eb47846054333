package otel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/snodo-go/snodo/dispatch"
	snodootel "github.com/snodo-go/snodo/instrumentation/otel"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// Each call becomes a server span, a child of the trace context the
// client sent in _meta. The supervision tree built from the Runtime
// (supervisor.New(rt)) reports the executor's metrics to the same sink.
func ExampleNew() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	sink, err := snodootel.New(snodootel.WithTracerProvider(tp))
	if err != nil {
		panic(err)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "traced", Version: "1"},
		dispatch.WithInstrumentation(sink),
		dispatch.WithTool(mcp.Tool{Name: "get_weather"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("sunny"), nil
		}))
	if err != nil {
		panic(err)
	}
	msg, _ := jsonrpc.Decode(testkit.Request(1, "tools/call", map[string]any{
		"name":  "get_weather",
		"_meta": map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}))
	rt.Dispatch(context.Background(), &dispatch.Request{Message: msg})

	s := spans.Ended()[0]
	fmt.Println(s.Name(), s.SpanKind(), s.Parent().TraceID())
	// Output:
	// tools/call get_weather server 4bf92f3577b34da6a3ce929d0e0e4736
}
