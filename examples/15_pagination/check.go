package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}

	// walk follows nextCursor to the end of a list and returns the names
	// in order and the cursors seen.
	walk := func(method, field string) (names, cursors []string, err error) {
		params := map[string]any{}
		for {
			res, err := c.Result(ctx, method, params)
			if err != nil {
				return nil, nil, err
			}
			items := res[field].([]any)
			if len(items) != 1 {
				return nil, nil, fmt.Errorf("%s: a page of %d items, want 1", method, len(items))
			}
			names = append(names, items[0].(map[string]any)["name"].(string))
			next, _ := res["nextCursor"].(string)
			if next == "" {
				return names, cursors, nil
			}
			cursors = append(cursors, next)
			params = map[string]any{"cursor": next}
		}
	}
	tools, toolCursors, err := walk("tools/list", "tools")
	if err != nil {
		return err
	}
	if err := excheck.Expect(strings.Join(tools, ",") == "alpha,bravo,charlie" && len(toolCursors) == 2, "tools: %v, cursors %d", tools, len(toolCursors)); err != nil {
		return err
	}
	prompts, promptCursors, err := walk("prompts/list", "prompts")
	if err != nil {
		return err
	}
	if err := excheck.Expect(strings.Join(prompts, ",") == "one,two" && len(promptCursors) == 1, "prompts: %v", prompts); err != nil {
		return err
	}
	// A cursor belongs to its list.
	if _, err := c.Fail(ctx, "prompts/list", map[string]any{"cursor": toolCursors[0]}, -32602); err != nil {
		return err
	}
	if _, err := c.Fail(ctx, "tools/list", map[string]any{"cursor": "made-up"}, -32602); err != nil {
		return err
	}
	fmt.Println("every page of tools and prompts, cursors bound to their list: ok")
	return nil
}
