package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

type weatherIn struct {
	City  string `json:"city" jsonschema:"the city to look up"`
	Days  int    `json:"days,omitempty"`
	Units string `json:"units,omitempty"`
}

type weatherOut struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
}

func typedRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	base := []dispatch.Option{
		dispatch.WithTypedTool(mcp.Tool{Name: "weather", Description: "Forecast"},
			func(_ context.Context, in weatherIn) (weatherOut, error) {
				if in.City == "Atlantis" {
					return weatherOut{}, errors.New("no weather under the sea")
				}
				return weatherOut{City: in.City, Temperature: 21.5}, nil
			}),
	}
	return mustNew(t, append(base, opts...)...)
}

func TestTypedToolSchemasAreInferred(t *testing.T) {
	rt := typedRuntime(t)
	tool := resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)[0].(map[string]any)
	in := tool["inputSchema"].(map[string]any)
	if in["type"] != "object" || in["additionalProperties"] != false {
		t.Fatalf("input schema = %v", in)
	}
	if req, _ := in["required"].([]any); len(req) != 1 || req[0] != "city" {
		t.Fatalf("required = %v", in["required"])
	}
	if d := in["properties"].(map[string]any)["city"].(map[string]any)["description"]; d != "the city to look up" {
		t.Fatalf("description = %v", d)
	}
	out := tool["outputSchema"].(map[string]any)
	if out["type"] != "object" || out["properties"].(map[string]any)["temperature"] == nil {
		t.Fatalf("output schema = %v", out)
	}
}

func TestTypedToolCall(t *testing.T) {
	rt := typedRuntime(t)
	f := call(t, rt, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{"city": "Lisbon"}})
	r := resultOf(t, f)
	sc := r["structuredContent"].(map[string]any)
	if sc["city"] != "Lisbon" || sc["temperature"] != 21.5 {
		t.Fatalf("structuredContent = %v", sc)
	}
	text, isErr := toolText(t, f)
	var fromText map[string]any
	if isErr || json.Unmarshal([]byte(text), &fromText) != nil || fromText["city"] != "Lisbon" {
		t.Fatalf("text block %q (isError %v) does not carry the JSON", text, isErr)
	}
	// A handler error is a result the model can read.
	text, isErr = toolText(t, call(t, rt, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{"city": "Atlantis"}}))
	if !isErr || !strings.Contains(text, "under the sea") {
		t.Fatalf("handler error: %q %v", text, isErr)
	}
}

// A typed handler returning *mcp.CallToolResult gets typed, validated
// arguments and sends the result it builds as is: no output schema is
// inferred and nothing is added to the result.
func TestTypedToolMayBuildItsOwnResult(t *testing.T) {
	ran := false
	rt := mustNew(t, dispatch.WithTypedTool(mcp.Tool{Name: "say"}, func(_ context.Context, in weatherIn) (*mcp.CallToolResult, error) {
		ran = true
		if in.City == "nowhere" {
			return nil, nil
		}
		return mcp.TextResult("sunny in " + in.City), nil
	}))
	tool := resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)[0].(map[string]any)
	if req, _ := tool["inputSchema"].(map[string]any)["required"].([]any); len(req) != 1 || req[0] != "city" {
		t.Fatalf("input schema not inferred from In: %v", tool["inputSchema"])
	}
	if out, has := tool["outputSchema"]; has {
		t.Fatalf("an output schema was inferred from the result type: %v", out)
	}
	f := call(t, rt, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{"city": "Lisbon"}})
	if text, isErr := toolText(t, f); isErr || text != "sunny in Lisbon" {
		t.Fatalf("result text %q (isError %v), want the handler's own", text, isErr)
	}
	if sc, has := resultOf(t, f)["structuredContent"]; has {
		t.Fatalf("structuredContent %v added to the handler's own result", sc)
	}
	if content, _ := resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{"city": "nowhere"}}))["content"].([]any); len(content) != 0 {
		t.Fatalf("a nil result gave content %v, want none", content)
	}
	ran = false
	if _, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{"days": 2}})); !isErr || ran {
		t.Fatalf("arguments failing the inferred schema: isError %v, handler ran %v", isErr, ran)
	}
}

func TestTypedToolRejectsBadArgumentsWithoutEchoingThem(t *testing.T) {
	ran := false
	rt := mustNew(t, dispatch.WithTypedTool(mcp.Tool{Name: "w"}, func(_ context.Context, in weatherIn) (weatherOut, error) {
		ran = true
		return weatherOut{}, nil
	}))
	cases := map[string]struct {
		args map[string]any
		want string
	}{
		"wrong type": {map[string]any{"city": "SECRET-VALUE-1", "days": "SECRET-VALUE-2"}, "arguments.days: expected integer"},
		"missing":    {map[string]any{"days": 3}, "city"},
		"extra":      {map[string]any{"city": "x", "KEY": 1}, `unexpected property "KEY"`},
	}
	for name, c := range cases {
		text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "w", "arguments": c.args}))
		if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, "SECRET-VALUE") {
			t.Errorf("%s: isError %v, text %q (want it to name %q and no value)", name, isErr, text, c.want)
		}
	}
	if ran {
		t.Fatal("the handler ran on invalid arguments")
	}
}

func TestOutputSchemaViolationIsInternalError(t *testing.T) {
	logger, logs := captureLogger()
	rt := mustNew(t, dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "raw", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
			func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Mode string }
				_ = json.Unmarshal(r.Arguments, &a)
				switch a.Mode {
				case "good":
					return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(`{"n":1}`)}, StructuredContent: map[string]any{"n": 1}}, nil
				case "none":
					return mcp.TextResult("no structure"), nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("x")}, StructuredContent: map[string]any{"n": "one"}}, nil
			}),
		dispatch.WithTypedTool(mcp.Tool{Name: "typed", OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number","maximum":10}}}`)},
			func(context.Context, weatherIn) (weatherOut, error) { return weatherOut{Temperature: 50}, nil }),
	)
	resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "raw", "arguments": map[string]any{"Mode": "good"}}))
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "raw", "arguments": map[string]any{"Mode": "bad"}}), jsonrpc.CodeInternalError)
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "raw", "arguments": map[string]any{"Mode": "none"}}), jsonrpc.CodeInternalError)
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "typed", "arguments": map[string]any{"city": "x"}}), jsonrpc.CodeInternalError)
	if !strings.Contains(logs.String(), "output schema") {
		t.Fatalf("output failure not logged: %s", logs)
	}
}

// schema2020 is the conformance suite's json_schema_2020_12_tool schema.
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addr","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street"],"additionalProperties":false}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"kind":{"anyOf":[{"const":"a"},{"const":"b"}]},"age":{"allOf":[{"type":"integer"},{"minimum":0}]}},"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["name"]},"else":{"required":["age"]},"additionalProperties":false}`

func TestRawSchemaPassesThroughAndValidates(t *testing.T) {
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "json_schema_2020_12_tool", Description: "d", InputSchema: json.RawMessage(schema2020)},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}))
	f := call(t, rt, "tools/list", nil)
	if !strings.Contains(string(f.Raw), `"inputSchema":`+schema2020) {
		t.Fatalf("schema not passed through byte for byte:\n%s", f.Raw)
	}
	ok := map[string]any{"kind": "a", "name": "n", "address": map[string]any{"street": "s"}}
	if text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "json_schema_2020_12_tool", "arguments": ok})); isErr {
		t.Fatalf("valid arguments refused: %s", text)
	}
	for name, args := range map[string]map[string]any{
		"then branch": {"kind": "a"},
		"$ref":        {"kind": "b", "age": 1, "address": map[string]any{"city": "c"}},
		"allOf":       {"kind": "b", "age": -1},
		"anyOf":       {"kind": "c", "age": 1},
	} {
		if text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "json_schema_2020_12_tool", "arguments": args})); !isErr {
			t.Errorf("%s: accepted (%s)", name, text)
		}
	}
}

func TestToolRegistrationErrors(t *testing.T) {
	h := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for name, opt := range map[string]dispatch.Option{
		"bad name":          dispatch.WithTool(mcp.Tool{Name: "has space"}, h),
		"long name":         dispatch.WithTool(mcp.Tool{Name: strings.Repeat("a", 65)}, h),
		"not object":        dispatch.WithTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, h),
		"array schema":      dispatch.WithTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`[1]`)}, h),
		"unresolvable ref":  dispatch.WithTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)}, h),
		"bad output":        dispatch.WithTool(mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":7}`)}, h),
		"typed scalar in":   dispatch.WithTypedTool(mcp.Tool{Name: "t"}, func(context.Context, string) (string, error) { return "", nil }),
		"typed chan in":     dispatch.WithTypedTool(mcp.Tool{Name: "t"}, func(context.Context, struct{ C chan int }) (any, error) { return nil, nil }),
		"typed nil handler": dispatch.WithTypedTool[weatherIn, weatherOut](mcp.Tool{Name: "t"}, nil),
	} {
		if _, err := dispatch.New(testInfo, opt); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}
