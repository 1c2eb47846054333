package instrumentation_test

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// printSink handles the events it cares about and embeds Nop for the
// rest.
type printSink struct{ instrumentation.Nop }

func (printSink) DispatchStop(_ context.Context, e instrumentation.DispatchStop) {
	fmt.Println(e.Method, e.Component, e.Outcome, e.Trace.IsValid())
}

// A sink given to the Runtime hears about every call: method, registered
// component, outcome and trace context, never arguments or results.
func ExampleSink() {
	rt, err := dispatch.New(mcp.Implementation{Name: "demo", Version: "1"},
		dispatch.WithInstrumentation(printSink{}),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("hi"), nil
		}))
	if err != nil {
		panic(err)
	}
	msg, _ := jsonrpc.Decode(testkit.Request(1, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"text": "not seen by the sink"},
		"_meta": map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}))
	rt.Dispatch(context.Background(), &dispatch.Request{Message: msg})
	// Output:
	// tools/call echo result true
}
