// Command 02_structured_schema shows tools with structured output: a typed
// tool whose input and output schemas are inferred from Go types, and a
// raw tool whose hand-written schemas are passed to clients byte for byte.
// Arguments are validated against the input schema before a handler runs,
// and structuredContent against the output schema after it.
//
//	go run ./examples/02_structured_schema          # serves over stdio
//	go run ./examples/02_structured_schema -check   # exercises it in process
package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
)

// ForecastIn is the typed tool's input; its schema comes from these
// fields, their JSON names and the jsonschema descriptions.
type ForecastIn struct {
	City string `json:"city" jsonschema:"the city to forecast"`
	Days int    `json:"days" jsonschema:"how many days, 1 to 7"`
}

// ForecastOut is the typed tool's output: it becomes structuredContent
// and, as JSON, the result's text block.
type ForecastOut struct {
	City  string    `json:"city"`
	Highs []float64 `json:"highs"`
}

// statsSchema is a raw output schema, sent to clients exactly as written.
const statsSchema = `{"type":"object","properties":{"count":{"type":"integer"},"mean":{"type":"number"}},"required":["count","mean"]}`

func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "structured", Version: "1.0.0"},
		dispatch.WithTypedTool(mcp.Tool{Name: "forecast", Description: "Daily highs for a city."}, forecast),
		dispatch.WithTool(mcp.Tool{
			Name:         "stats",
			Description:  "Count and mean of a list of numbers.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"values":{"type":"array","items":{"type":"number"}}},"required":["values"]}`),
			OutputSchema: json.RawMessage(statsSchema),
		}, stats),
	)
}

func forecast(_ context.Context, in ForecastIn) (ForecastOut, error) {
	if in.Days < 1 || in.Days > 7 {
		return ForecastOut{}, fmt.Errorf("days must be from 1 to 7, got %d", in.Days)
	}
	out := ForecastOut{City: in.City}
	for d := range in.Days {
		out.Highs = append(out.Highs, 20+float64(d)/2)
	}
	return out, nil
}

func stats(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{ Values []float64 }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	if len(args.Values) == 0 {
		// Deliberately breaks the output schema (mean is required), to
		// show that the server refuses to send it: -32603, logged.
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("{}")}, StructuredContent: map[string]any{"count": 0}}, nil
	}
	var sum float64
	for _, v := range args.Values {
		sum += v
	}
	out := map[string]any{"count": len(args.Values), "mean": sum / float64(len(args.Values))}
	text, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(string(text))}, StructuredContent: out}, nil
}

func main() { excheck.Main(newRuntime, checks) }
