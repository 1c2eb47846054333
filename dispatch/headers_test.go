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

const headerSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"shard":{"type":"integer","x-mcp-header":"Shard"},
	"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},
	"opts":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
	"query":{"type":"string"}}}`

func headerRuntime(t *testing.T) *dispatch.Runtime {
	t.Helper()
	return mustNew(t, dispatch.WithTool(mcp.Tool{Name: "test_x_mcp_header", InputSchema: json.RawMessage(headerSchema)},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		}))
}

// httpCall sends tools/call with the standard headers plus extra.
func httpCall(t *testing.T, rt *dispatch.Runtime, args map[string]any, extra map[string][]string) *jsonrpc.Error {
	t.Helper()
	f := callWith(t, rt, "tools/call", map[string]any{"name": "test_x_mcp_header", "arguments": args}, func(r *dispatch.Request) {
		r.Transport = dispatch.TransportHTTP
		r.Header = map[string][]string{
			"Mcp-Protocol-Version": {"2026-07-28"},
			"Mcp-Method":           {"tools/call"},
			"Mcp-Name":             {"test_x_mcp_header"},
		}
		for k, v := range extra {
			r.Header[k] = v
		}
	})
	if f.Error != nil {
		return &jsonrpc.Error{Code: f.Error.Code, Message: f.Error.Message}
	}
	return nil
}

func TestParamHeadersAccepted(t *testing.T) {
	rt := headerRuntime(t)
	cases := map[string]struct {
		args map[string]any
		hdr  map[string][]string
	}{
		"none needed":      {map[string]any{"query": "q"}, nil},
		"null needs none":  {map[string]any{"region": nil}, nil},
		"string":           {map[string]any{"region": "us-west1"}, map[string][]string{"Mcp-Param-Region": {"us-west1"}}},
		"base64":           {map[string]any{"region": "Hello, 世界"}, map[string][]string{"Mcp-Param-Region": {"=?base64?SGVsbG8sIOS4lueVjA==?="}}},
		"sentinel literal": {map[string]any{"region": "=?base64?literal?="}, map[string][]string{"Mcp-Param-Region": {"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}}},
		"integer":          {map[string]any{"shard": 42}, map[string][]string{"Mcp-Param-Shard": {"42"}}},
		"integer numeric":  {map[string]any{"shard": 42}, map[string][]string{"Mcp-Param-Shard": {"42.0"}}},
		"boolean":          {map[string]any{"dry": false}, map[string][]string{"Mcp-Param-Dry-Run": {"false"}}},
		"nested":           {map[string]any{"opts": map[string]any{"zone": "z1"}}, map[string][]string{"Mcp-Param-Zone": {"z1"}}},
		"case and space":   {map[string]any{"region": "eu"}, map[string][]string{"mcp-param-region": {"  eu "}}},
	}
	for name, c := range cases {
		if e := httpCall(t, rt, c.args, c.hdr); e != nil {
			t.Errorf("%s: refused with %d %s", name, e.Code, e.Message)
		}
	}
}

func TestParamHeadersRefused(t *testing.T) {
	rt := headerRuntime(t)
	cases := map[string]struct {
		args map[string]any
		hdr  map[string][]string
	}{
		"missing":          {map[string]any{"region": "us"}, nil},
		"mismatch":         {map[string]any{"region": "us"}, map[string][]string{"Mcp-Param-Region": {"eu"}}},
		"case of value":    {map[string]any{"region": "us"}, map[string][]string{"Mcp-Param-Region": {"US"}}},
		"repeated":         {map[string]any{"region": "us"}, map[string][]string{"Mcp-Param-Region": {"us", "us"}}},
		"bad base64":       {map[string]any{"region": "us"}, map[string][]string{"Mcp-Param-Region": {"=?base64?dXM?="}}},
		"bad characters":   {map[string]any{"region": "us"}, map[string][]string{"Mcp-Param-Region": {"u\x01s"}}},
		"integer mismatch": {map[string]any{"shard": 42}, map[string][]string{"Mcp-Param-Shard": {"43"}}},
		"integer garbage":  {map[string]any{"shard": 42}, map[string][]string{"Mcp-Param-Shard": {"0x2a"}}},
		"boolean case":     {map[string]any{"dry": true}, map[string][]string{"Mcp-Param-Dry-Run": {"True"}}},
		"header, no value": {map[string]any{"query": "q"}, map[string][]string{"Mcp-Param-Region": {"us"}}},
		"nested missing":   {map[string]any{"opts": map[string]any{"zone": "z1"}}, nil},
	}
	for name, c := range cases {
		e := httpCall(t, rt, c.args, c.hdr)
		if e == nil || e.Code != mcp.CodeHeaderMismatch {
			t.Errorf("%s: got %v, want -32020", name, e)
		}
	}
}

func TestStandardHeaderChecks(t *testing.T) {
	rt := headerRuntime(t)
	for name, hdr := range map[string]map[string][]string{
		"method case":  {"Mcp-Method": {"TOOLS/CALL"}},
		"name differs": {"Mcp-Name": {"other"}},
		"name missing": {"Mcp-Name": nil},
	} {
		e := httpCall(t, rt, map[string]any{}, hdr) // a nil slice is an absent header
		if e == nil || e.Code != mcp.CodeHeaderMismatch {
			t.Errorf("%s: got %v", name, e)
		}
	}
}

func TestXMCPHeaderRegistration(t *testing.T) {
	h := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	bad := map[string]string{
		"empty":        `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"not a token":  `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}`,
		"control char": `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\nB"}}}`,
		"not string":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`,
		"duplicate":    `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`,
		"number type":  `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"object type":  `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`,
		"type list":    `{"type":"object","properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}`,
		"under items":  `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"under anyOf":  `{"type":"object","properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}`,
		"under $defs":  `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`,
		"under then":   `{"type":"object","if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`,
		"at the root":  `{"type":"object","x-mcp-header":"A"}`,
	}
	for name, schema := range bad {
		_, err := dispatch.New(testInfo, dispatch.WithTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}, h))
		if err == nil || !strings.Contains(err.Error(), "x-mcp-header") {
			t.Errorf("%s: New error = %v", name, err)
		}
	}
	// A property that is merely called x-mcp-header is not an annotation.
	if _, err := dispatch.New(testInfo, dispatch.WithTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"x-mcp-header":{"type":"number"}}}`)}, h)); err != nil {
		t.Errorf("a property named x-mcp-header: %v", err)
	}
}
