package main

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

// checks drives the runtime as a client would and returns the first
// failure. Every response is checked against the official 2026-07-28
// schema.
func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}

	disc, err := c.Result(ctx, "server/discover", nil)
	if err != nil {
		return err
	}
	if err := excheck.Expect(disc["instructions"] == "reverse reverses text; divide divides a by b.", "discover: %v", disc); err != nil {
		return err
	}
	list, err := c.Result(ctx, "tools/list", nil)
	if err != nil {
		return err
	}
	if tools, _ := list["tools"].([]any); len(tools) != 2 {
		return fmt.Errorf("tools/list: %v", list)
	}
	res, err := c.Result(ctx, "tools/call", map[string]any{"name": "reverse", "arguments": map[string]any{"text": "stressed"}})
	if err != nil {
		return err
	}
	if err := excheck.Expect(excheck.Text(res) == "desserts", "reverse: %v", res); err != nil {
		return err
	}
	res, err = c.Result(ctx, "tools/call", map[string]any{"name": "divide", "arguments": map[string]any{"a": 1, "b": 0}})
	if err != nil {
		return err
	}
	if err := excheck.Expect(res["isError"] == true && excheck.Text(res) == "cannot divide by zero", "divide by zero: %v", res); err != nil {
		return err
	}
	// Arguments that do not match the input schema never reach the
	// handler: the result names the failing path and keyword.
	res, err = c.Result(ctx, "tools/call", map[string]any{"name": "divide", "arguments": map[string]any{"a": "one", "b": 2}})
	if err != nil {
		return err
	}
	if err := excheck.Expect(res["isError"] == true && excheck.Text(res) == `arguments.a: expected number`, "invalid arguments: %v", res); err != nil {
		return err
	}
	if _, err := c.Fail(ctx, "tools/call", map[string]any{"name": "missing"}, -32602); err != nil {
		return err
	}
	// The transcript the program prints without -check is built the same
	// way: raw lines through the bounded decoder.
	out := dispatchLine(ctx, rt, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"reverse","arguments":{"text":"ab"},"_meta":`+meta+`}}`)
	if err := excheck.Expect(contains(out, `"text":"ba"`), "raw line: %s", out); err != nil {
		return err
	}
	fmt.Println("discover, list, call, tool error, argument validation, unknown tool: ok")
	return nil
}
