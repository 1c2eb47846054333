package main

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}

	list, err := c.Result(ctx, "prompts/list", nil)
	if err != nil {
		return err
	}
	prompts := list["prompts"].([]any)
	first := prompts[0].(map[string]any)
	if err := excheck.Expect(len(prompts) == 2 && first["name"] == "commit_message" && len(first["arguments"].([]any)) == 2, "prompts/list: %v", prompts); err != nil {
		return err
	}
	got, err := c.Result(ctx, "prompts/get", map[string]any{"name": "commit_message", "arguments": map[string]any{"summary": "fix the parser", "style": "conventional"}})
	if err != nil {
		return err
	}
	msgs := got["messages"].([]any)
	m0 := msgs[0].(map[string]any)
	if err := excheck.Expect(len(msgs) == 2 && m0["role"] == "user" && excheck.Text(map[string]any{"content": []any{m0["content"]}}) == "Write a conventional commit message for: fix the parser",
		"prompts/get: %v", got); err != nil {
		return err
	}
	// A missing required argument is refused before the handler runs.
	if _, err := c.Fail(ctx, "prompts/get", map[string]any{"name": "commit_message"}, -32602); err != nil {
		return err
	}
	if _, err := c.Fail(ctx, "prompts/get", map[string]any{"name": "nope"}, -32602); err != nil {
		return err
	}
	lic, err := c.Result(ctx, "prompts/get", map[string]any{"name": "explain_license"})
	if err != nil {
		return err
	}
	embedded := lic["messages"].([]any)[1].(map[string]any)["content"].(map[string]any)
	if err := excheck.Expect(embedded["type"] == "resource" && embedded["resource"].(map[string]any)["uri"] == "file:///project/LICENSE", "embedded resource: %v", embedded); err != nil {
		return err
	}
	fmt.Println("list, get with arguments, required arguments, unknown prompt, embedded resource: ok")
	return nil
}
