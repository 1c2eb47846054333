package dispatch_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// secret stands for every value in the arguments below: no message may
// contain it.
const secret = "SECRET-7f3a"

const travelSchema = `{
	"type": "object",
	"properties": {
		"city": {"type": "string"},
		"days": {"type": "integer", "minimum": 1},
		"unit": {"enum": ["celsius", "fahrenheit"]},
		"tags": {"type": "array", "items": {"type": "string", "maxLength": 20}},
		"stay": {
			"type": "object",
			"properties": {
				"hotel": {"type": "string"},
				"rooms": {"type": "array", "items": {
					"type": "object",
					"properties": {"beds": {"type": "integer"}},
					"required": ["beds"]
				}}
			},
			"required": ["hotel"]
		},
		"odd key": {"type": "boolean"}
	},
	"required": ["city"],
	"additionalProperties": false
}`

// Every way arguments can fail the input schema gives an isError result
// naming the path and the keyword, and never a value.
func TestBadArgumentsNamePathAndKeyword(t *testing.T) {
	ran := false
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "travel", InputSchema: json.RawMessage(travelSchema)},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			ran = true
			return mcp.TextResult("ok"), nil
		}))
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"unknown property":  {map[string]any{"city": secret, "nom": secret}, `arguments: unexpected property "nom"`},
		"wrong type":        {map[string]any{"city": secret, "days": secret}, `arguments.days: expected integer`},
		"wrong type number": {map[string]any{"city": secret, "days": 2.5}, `arguments.days: expected integer`},
		"missing required":  {map[string]any{"days": 3}, `arguments: missing required property "city"`},
		"nested path":       {map[string]any{"city": secret, "stay": map[string]any{"hotel": 7}}, `arguments.stay.hotel: expected string`},
		"nested required":   {map[string]any{"city": secret, "stay": map[string]any{}}, `arguments.stay: missing required property "hotel"`},
		"array index":       {map[string]any{"city": secret, "tags": []any{"a", "b", 3}}, `arguments.tags[2]: expected string`},
		"index then name":   {map[string]any{"city": secret, "stay": map[string]any{"hotel": secret, "rooms": []any{map[string]any{"beds": 1}, map[string]any{"beds": secret}}}}, `arguments.stay.rooms[1].beds: expected integer`},
		"enum":              {map[string]any{"city": secret, "unit": secret}, `arguments.unit: expected one of "celsius", "fahrenheit"`},
		"minimum":           {map[string]any{"city": secret, "days": 0}, `arguments.days: expected at least 1`},
		"maxLength":         {map[string]any{"city": secret, "tags": []any{secret + secret + secret}}, `arguments.tags[0]: expected at most 20 characters`},
		"quoted name":       {map[string]any{"city": secret, "odd key": secret}, `arguments["odd key"]: expected boolean`},
	} {
		text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "travel", "arguments": c.args}))
		if !isErr || text != c.want {
			t.Errorf("%s: isError %v, text %q, want %q", name, isErr, text, c.want)
		}
		if strings.Contains(text, secret) || strings.Contains(text, "2.5") {
			t.Errorf("%s: the message quotes a value: %q", name, text)
		}
	}
	if ran {
		t.Fatal("the handler ran on invalid arguments")
	}
}

// The same message comes back on every call, whichever of several
// failures the validator meets first.
func TestBadArgumentsMessageIsStable(t *testing.T) {
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "travel", InputSchema: json.RawMessage(travelSchema)},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}))
	args := map[string]any{"city": 1, "days": "x", "unit": "k", "tags": []any{1, 2}}
	first, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "travel", "arguments": args}))
	for range 20 {
		if text, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "travel", "arguments": args})); text != first {
			t.Fatalf("message changed: %q then %q", first, text)
		}
	}
	if first != "arguments.city: expected string" {
		t.Fatalf("first failure = %q", first)
	}
}

// Arguments that are not an object are a -32602 in the same shape.
func TestArgumentsNotAnObjectIsInvalidParams(t *testing.T) {
	rt := mustNew(t, dispatch.WithTool(mcp.Tool{Name: "t"},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}))
	f := call(t, rt, "tools/call", map[string]any{"name": "t", "arguments": []any{secret}})
	e := rpcError(t, f, jsonrpc.CodeInvalidParams)
	if e.Message != "Invalid params: arguments: expected object" || strings.Contains(string(f.Raw), secret) {
		t.Fatalf("error = %s", f.Raw)
	}
}

// A typed tool whose explicit schema is looser than its input type names
// the field that does not decode and the JSON type it needs.
func TestTypedToolDecodeFailureNamesTheField(t *testing.T) {
	type in struct {
		Stay struct {
			Nights int `json:"nights"`
		} `json:"stay"`
	}
	ran := false
	rt := mustNew(t, dispatch.WithTypedTool(mcp.Tool{Name: "loose", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, in) (struct{}, error) { ran = true; return struct{}{}, nil }))
	text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "loose", "arguments": map[string]any{"stay": map[string]any{"nights": secret}}}))
	if !isErr || text != "arguments.stay.nights: expected integer" {
		t.Fatalf("isError %v, text %q", isErr, text)
	}
	if ran {
		t.Fatal("the handler ran")
	}
}

// A typed tool's inferred schema refuses bad arguments in the same shape.
func TestTypedToolBadArgumentsShape(t *testing.T) {
	rt := mustNew(t, dispatch.WithTypedTool(mcp.Tool{Name: "w"}, func(_ context.Context, in weatherIn) (weatherOut, error) {
		return weatherOut{}, nil
	}))
	for args, want := range map[string]string{
		`{"city":"` + secret + `","days":"` + secret + `"}`: "arguments.days: expected integer",
		`{"days":3}`:                        `arguments: missing required property "city"`,
		`{"city":"` + secret + `","nom":1}`: `arguments: unexpected property "nom"`,
	} {
		var a map[string]any
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			t.Fatal(err)
		}
		if text, isErr := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "w", "arguments": a})); !isErr || text != want {
			t.Errorf("%s: isError %v, text %q, want %q", args, isErr, text, want)
		}
	}
}
