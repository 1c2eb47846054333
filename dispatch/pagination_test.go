package dispatch_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func toolsRuntime(t *testing.T, n int, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	h := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("ok"), nil
	}
	for i := 0; i < n; i++ {
		opts = append(opts, dispatch.WithTool(mcp.Tool{Name: fmt.Sprintf("tool_%02d", i)}, h))
	}
	return mustNew(t, opts...)
}

func TestPaginationWalk(t *testing.T) {
	rt := toolsRuntime(t, 5, dispatch.WithLimits(dispatch.Limits{PageSize: 2}))
	var got []string
	var cursor any
	pages := 0
	for {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = cursor
		}
		r := resultOf(t, call(t, rt, "tools/list", params))
		got = append(got, names(r["tools"].([]any), "name")...)
		pages++
		next, ok := r["nextCursor"]
		if !ok {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		cursor = next
	}
	want := []string{"tool_00", "tool_01", "tool_02", "tool_03", "tool_04"}
	if !reflect.DeepEqual(got, want) || pages != 3 {
		t.Fatalf("walked %v in %d pages", got, pages)
	}
}

func TestPaginationDefaultPageSize(t *testing.T) {
	rt := toolsRuntime(t, 101)
	r := resultOf(t, call(t, rt, "tools/list", nil))
	if n := len(r["tools"].([]any)); n != 100 || r["nextCursor"] == nil {
		t.Fatalf("first page has %d tools, cursor %v", n, r["nextCursor"])
	}
	r = resultOf(t, call(t, rt, "tools/list", map[string]any{"cursor": r["nextCursor"]}))
	if n := len(r["tools"].([]any)); n != 1 || r["nextCursor"] != nil {
		t.Fatalf("last page has %d tools, cursor %v", n, r["nextCursor"])
	}
}

func TestPaginationRefusesForeignCursors(t *testing.T) {
	opts := []dispatch.Option{dispatch.WithLimits(dispatch.Limits{PageSize: 2})}
	rt := toolsRuntime(t, 5, opts...)
	cursor := resultOf(t, call(t, rt, "tools/list", nil))["nextCursor"].(string)

	bad := func(name string, rt *dispatch.Runtime, method string, c any) {
		t.Helper()
		f := call(t, rt, method, map[string]any{"cursor": c})
		if f.Error == nil || f.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %s", name, f.Raw)
		}
	}
	// The same cursor on another list method.
	prt := promptRuntime(t, opts...)
	bad("another method", prt, "prompts/list", cursor)
	// A runtime with other tools (another catalog).
	bad("another catalog", toolsRuntime(t, 6, opts...), "tools/list", cursor)
	// The same catalog with another page size.
	bad("another page size", toolsRuntime(t, 5, dispatch.WithLimits(dispatch.Limits{PageSize: 3})), "tools/list", cursor)
	// The cursor re-encoded with another protocol version.
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	body["pv"] = "2025-11-25"
	forged, _ := json.Marshal(body)
	bad("another version", rt, "tools/list", base64.RawURLEncoding.EncodeToString(forged))
	body["pv"], body["o"] = "2026-07-28", 99
	forged, _ = json.Marshal(body)
	bad("offset past the end", rt, "tools/list", base64.RawURLEncoding.EncodeToString(forged))
	bad("garbage", rt, "tools/list", "not-a-cursor!")
	bad("not a string", rt, "tools/list", 12)
	// The genuine cursor still works.
	if r := resultOf(t, call(t, rt, "tools/list", map[string]any{"cursor": cursor})); len(r["tools"].([]any)) != 2 {
		t.Fatalf("genuine cursor: %v", r)
	}
}
