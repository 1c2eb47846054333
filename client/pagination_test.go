package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
)

func tool(name string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
}

func TestListFollowsPages(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		var cursor *string
		param(m, "cursor", &cursor)
		switch {
		case cursor == nil:
			f.reply(m.ID, complete(map[string]any{"tools": []any{tool("a")}, "nextCursor": "c1"}))
		case *cursor == "c1":
			// An empty cursor is a cursor, not the end.
			f.reply(m.ID, complete(map[string]any{"tools": []any{tool("b")}, "nextCursor": ""}))
		case *cursor == "":
			f.reply(m.ID, complete(map[string]any{"tools": []any{tool("c")}}))
		default:
			f.fail(m.ID, jsonrpc.CodeInvalidParams, "bad cursor", nil)
		}
	}))
	c := connect(t, tr)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Fatalf("tools %v", names)
	}
	if n := len(f.received("tools/list")); n != 3 {
		t.Fatalf("%d requests", n)
	}
}

func TestListRefusesRepeatedCursor(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		f.reply(m.ID, complete(map[string]any{"prompts": []any{}, "nextCursor": "again"}))
	}))
	c := connect(t, tr)
	_, err := c.ListPrompts(context.Background())
	if !errors.Is(err, client.ErrTooManyPages) || !strings.Contains(err.Error(), `repeated the cursor "again"`) {
		t.Fatalf("want ErrTooManyPages naming the repeated cursor, got %v", err)
	}
	if n := len(f.received("prompts/list")); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestListBoundsPages(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		n := len(f.received("resources/list"))
		f.reply(m.ID, complete(map[string]any{"resources": []any{}, "nextCursor": fmt.Sprint(n)}))
	}))
	c := connect(t, tr, client.WithLimits(client.Limits{MaxPages: 5}))
	_, err := c.ListResources(context.Background())
	if !errors.Is(err, client.ErrTooManyPages) {
		t.Fatalf("want ErrTooManyPages, got %v", err)
	}
	if n := len(f.received("resources/list")); n != 5 {
		t.Fatalf("%d requests, want 5", n)
	}
}

// TestListDropsToolsWithInvalidHeaders: the protocol asks clients to
// leave out tools whose x-mcp-header annotations break its rules.
func TestListDropsToolsWithInvalidHeaders(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		f.reply(m.ID, complete(map[string]any{"tools": []any{
			tool("plain"),
			map[string]any{"name": "good", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"r": map[string]any{"type": "string", "x-mcp-header": "Region"}}}},
			map[string]any{"name": "on-number", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"r": map[string]any{"type": "number", "x-mcp-header": "Region"}}}},
			map[string]any{"name": "duplicate", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"a": map[string]any{"type": "string", "x-mcp-header": "X"},
				"b": map[string]any{"type": "string", "x-mcp-header": "x"}}}},
		}}))
	}))
	c := connect(t, tr)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"plain", "good"}) {
		t.Fatalf("tools %v", names)
	}
}
