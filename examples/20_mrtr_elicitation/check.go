package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

// withElicitation declares the client's elicitation capability (form and
// URL modes) in the request's _meta.
func withElicitation(p map[string]any) map[string]any {
	p["_meta"] = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
	}}
	return p
}

func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}

	// Tool, round 1: the server asks.
	args := map[string]any{"path": "/tmp/notes.txt"}
	first, err := c.Result(ctx, "tools/call", withElicitation(map[string]any{"name": "delete_file", "arguments": args}))
	if err != nil {
		return err
	}
	ask, _ := first["inputRequests"].(map[string]any)["confirm"].(map[string]any)
	if err := excheck.Expect(first["resultType"] == "input_required" && ask["method"] == "elicitation/create" && first["requestState"] != nil, "round 1: %v", first); err != nil {
		return err
	}
	// Round 2: the user confirmed; the client retries with the answer
	// and the state.
	second, err := c.Result(ctx, "tools/call", withElicitation(map[string]any{
		"name": "delete_file", "arguments": args,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}},
		"requestState":   first["requestState"],
	}))
	if err != nil {
		return err
	}
	if err := excheck.Expect(second["resultType"] == "complete" && excheck.Text(second) == "deleted /tmp/notes.txt (size=4096)", "round 2: %v", second); err != nil {
		return err
	}
	// The state is bound to the params: replaying it for another path
	// is refused.
	if _, err := c.Fail(ctx, "tools/call", withElicitation(map[string]any{
		"name": "delete_file", "arguments": map[string]any{"path": "/etc/passwd"},
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}},
		"requestState":   first["requestState"],
	}), -32602); err != nil {
		return err
	}
	// A client without the capability is told what is missing.
	e, err := c.Fail(ctx, "tools/call", map[string]any{"name": "delete_file", "arguments": args}, -32021)
	if err != nil {
		return err
	}
	if err := excheck.Expect(e.Data["requiredCapabilities"] != nil, "-32021 data: %v", e.Data); err != nil {
		return err
	}

	// Resource: a URL elicitation.
	r1, err := c.Result(ctx, "resources/read", withElicitation(map[string]any{"uri": "vault://report"}))
	if err != nil {
		return err
	}
	signIn := r1["inputRequests"].(map[string]any)["sign_in"].(map[string]any)["params"].(map[string]any)
	if err := excheck.Expect(signIn["mode"] == "url" && signIn["url"] == "https://vault.example/sign-in?session=42", "url elicitation: %v", signIn); err != nil {
		return err
	}
	r2, err := c.Result(ctx, "resources/read", withElicitation(map[string]any{
		"uri": "vault://report", "inputResponses": map[string]any{"sign_in": map[string]any{"action": "accept"}},
	}))
	if err != nil {
		return err
	}
	if err := excheck.Expect(r2["contents"].([]any)[0].(map[string]any)["text"] == "Q3 report", "resource round 2: %v", r2); err != nil {
		return err
	}

	// Prompt: asks only when the argument is missing.
	p1, err := c.Result(ctx, "prompts/get", withElicitation(map[string]any{"name": "reply"}))
	if err != nil {
		return err
	}
	p2, err := c.Result(ctx, "prompts/get", withElicitation(map[string]any{
		"name": "reply", "inputResponses": map[string]any{"tone": map[string]any{"action": "accept", "content": map[string]any{"tone": "friendly"}}},
	}))
	if err != nil {
		return err
	}
	text := p2["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"]
	if err := excheck.Expect(p1["resultType"] == "input_required" && text == "Reply in a friendly tone.", "prompt: %v / %v", p1, p2); err != nil {
		return err
	}

	// A key ring: state sealed by one instance opens on another that
	// shares the keys.
	key := bytes.Repeat([]byte{7}, 32)
	a, err := newRuntime(key)
	if err != nil {
		return err
	}
	b, err := newRuntime(key)
	if err != nil {
		return err
	}
	ra, err := (&excheck.Direct{RT: a}).Result(ctx, "tools/call", withElicitation(map[string]any{"name": "delete_file", "arguments": args}))
	if err != nil {
		return err
	}
	rb, err := (&excheck.Direct{RT: b}).Result(ctx, "tools/call", withElicitation(map[string]any{
		"name": "delete_file", "arguments": args,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "decline"}},
		"requestState":   ra["requestState"],
	}))
	if err != nil {
		return err
	}
	if err := excheck.Expect(excheck.Text(rb) == "kept /tmp/notes.txt", "across instances: %v", rb); err != nil {
		return err
	}
	fmt.Println("form and URL elicitation for a tool, a resource and a prompt; sealed state, replay refusal, -32021, key ring: ok")
	return nil
}
