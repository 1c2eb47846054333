// The prompts/list and prompts/get operations.

package dispatch

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// listPromptsResult is the neutral result of prompts/list.
type listPromptsResult struct {
	prompts    []mcp.Prompt
	nextCursor string
}

func opPromptsList(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	snap := rt.catalog.snapshot()
	name := func(e *promptEntry) string { return e.prompt.Name }
	page, next, err := pageOf(rt, c, filter(ctx, rt, c, snap, snap.promptList, KindPrompt, name), name)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Prompt, len(page))
	for i, e := range page {
		out[i] = e.prompt
	}
	return &listPromptsResult{prompts: out, nextCursor: next}, nil
}

type getPromptParams struct {
	Name      *string        `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

func unknownPrompt(name string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown prompt: " + name}).WithData(map[string]any{"name": name})
}

func opPromptsGet(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	var p getPromptParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Invalid params: prompts/get needs a prompt name")
	}
	e, ok := rt.catalog.snapshot().prompts[*p.Name]
	if !ok {
		return nil, unknownPrompt(*p.Name)
	}
	if err := rt.authorizeUse(ctx, c, KindPrompt, *p.Name, "", func() *jsonrpc.Error { return unknownPrompt(*p.Name) }); err != nil {
		return nil, err
	}
	args := make(map[string]string, len(p.Arguments))
	for k, v := range p.Arguments {
		s, ok := v.(string)
		if !ok {
			return nil, invalidParams("Invalid params: prompt argument " + k + " must be a string")
		}
		args[k] = s
	}
	var missing []string
	for _, a := range e.prompt.Arguments {
		if _, has := args[a.Name]; a.Required && !has {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: missing required arguments: " + strings.Join(missing, ", ")}).
			WithData(map[string]any{"missing": missing})
	}
	res, err := rt.callPrompt(ctx, e, &GetPromptRequest{Name: *p.Name, Arguments: args, Info: &c.Info, Input: c.Input})
	if err != nil {
		var ir *InputRequired
		if errors.As(err, &ir) {
			return rt.inputRequired(c, ir)
		}
		return nil, rt.callbackError(c, err)
	}
	if res == nil {
		return nil, rt.internal(c, "prompt "+*p.Name, errors.New("nil result"))
	}
	for _, m := range res.Messages {
		if m.Content == nil || (m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant) {
			return nil, rt.internal(c, "prompt "+*p.Name, errors.New("a message needs the role user or assistant and content"))
		}
	}
	return res, nil
}
