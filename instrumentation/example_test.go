package instrumentation_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
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

// refusalSink prints the requests transports refuse on their own.
type refusalSink struct{ instrumentation.Nop }

func (refusalSink) Refusal(e instrumentation.RefusalEvent) {
	fmt.Println(e.Transport, e.Status, e.Reason, e.HTTPMethod)
}

// A transport's refusal reaches the Runtime's sink with its reason: here
// a POST from a browser page of another origin, refused with 403 before
// the dispatch core sees it.
func ExampleRefusalEvent() {
	rt, err := dispatch.New(mcp.Implementation{Name: "demo", Version: "1"}, dispatch.WithInstrumentation(refusalSink{}))
	if err != nil {
		panic(err)
	}
	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		panic(err)
	}
	defer h.Close()
	frame := testkit.Request(1, "server/discover", nil)
	resp, _ := h.Handle(context.Background(), &streamablehttp.Request{
		Method: "POST", Path: "/", Host: "127.0.0.1",
		Header: http.Header{
			"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Origin": {"https://elsewhere.example"},
		},
		ContentLength: int64(len(frame)), Body: bytes.NewReader(frame),
	})
	fmt.Println(resp.Status)
	// Output:
	// http 403 origin POST
	// 403
}
