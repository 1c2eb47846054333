package main

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// weather is the structured output of test_structured_output.
type weather struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit"`
}

// cityInput is the input of test_structured_output.
type cityInput struct {
	City string `json:"city" jsonschema:"The city to report on."`
}

// reconnectDelay is how long test_reconnection works on after closing
// its stream, so that its client is away when the response is ready.
const reconnectDelay = 200 * time.Millisecond

// clientTools cover what client libraries offer beyond the conformance
// suite's tools: structured output with an output schema, a resource
// link, an elicitation in URL mode, and a call that closes its event
// stream and answers after the client reconnected (SEP-1699).
func clientTools() []dispatch.Option {
	return []dispatch.Option{
		dispatch.WithTool(mcp.Tool{
			Name: "test_reconnection", Description: "Closes its event stream mid-call, then answers on the resumed stream (2025-11-25 over HTTP with sessions).", InputSchema: noArgs,
		}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if dispatch.CloseStream(ctx) {
				if err := pause(ctx, reconnectDelay); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult("Reconnection test completed"), nil
		}),
		dispatch.WithTypedTool(mcp.Tool{
			Name: "test_structured_output", Description: "Reports the weather of a city as structured content.",
		}, func(_ context.Context, in cityInput) (weather, error) {
			return weather{City: in.City, Temperature: 21.5, Unit: "celsius"}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_resource_link", Description: "Returns a link to test://static-text.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ResourceLink{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
			}}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_url_elicitation", Description: "Asks the user to open a page (an elicitation in URL mode), then reports the answer.", InputSchema: noArgs,
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Input.Elicitation("consent"); ok {
				return mcp.TextResult("URL elicitation: action=" + answer.Action), nil
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"consent": mcp.ElicitURL("Please open the page to continue.", "http://127.0.0.1/consent"),
			}}
		}),
	}
}
