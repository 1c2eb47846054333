package dispatch_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func promptRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	size := int64(3)
	base := []dispatch.Option{
		dispatch.WithPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: "simple"},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}}, nil
			}),
		dispatch.WithPrompt(mcp.Prompt{
			Name: "test_prompt_with_arguments", Description: "args",
			Arguments: []mcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Required: true}, {Name: "opt"}},
		}, func(_ context.Context, r *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "d", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text(fmt.Sprintf("first=%s second=%s", r.Arguments["arg1"], r.Arguments["arg2"]))},
			}}, nil
		}),
		dispatch.WithPrompt(mcp.Prompt{Name: "every_content", Description: "all content types"},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Result: mcp.Result{Meta: map[string]any{"com.example/k": "v"}}, Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Text("t")},
					{Role: mcp.RoleUser, Content: &mcp.ImageContent{Data: "iVBORw0KGgo=", MIMEType: "image/png"}},
					{Role: mcp.RoleAssistant, Content: &mcp.AudioContent{Data: "UklGRg==", MIMEType: "audio/wav"}},
					{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: mcp.TextContents("test://static-text", "text/plain", "x")}},
					{Role: mcp.RoleUser, Content: &mcp.ResourceLink{URI: "test://static-binary", Name: "bin", Size: &size}},
				}}, nil
			}),
	}
	return mustNew(t, append(base, opts...)...)
}

func TestPromptsListAndGet(t *testing.T) {
	rt := promptRuntime(t)
	r := resultOf(t, call(t, rt, "prompts/list", nil))
	if got := names(r["prompts"].([]any), "name"); !reflect.DeepEqual(got, []string{"every_content", "test_prompt_with_arguments", "test_simple_prompt"}) {
		t.Fatalf("prompts = %v", got)
	}
	if r["cacheScope"] != "private" || r["ttlMs"] != float64(0) {
		t.Fatalf("cache hints: %v", r)
	}
	r = resultOf(t, call(t, rt, "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "A1", "arg2": "B2"}}))
	text := r["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"].(string)
	if !strings.Contains(text, "A1") || !strings.Contains(text, "B2") || r["description"] != "d" || r["resultType"] != "complete" {
		t.Fatalf("prompt = %v", r)
	}
	r = resultOf(t, call(t, rt, "prompts/get", map[string]any{"name": "every_content"}))
	var types []string
	for _, m := range r["messages"].([]any) {
		types = append(types, m.(map[string]any)["content"].(map[string]any)["type"].(string))
	}
	if !reflect.DeepEqual(types, []string{"text", "image", "audio", "resource", "resource_link"}) {
		t.Fatalf("content types = %v", types)
	}
	if meta := r["_meta"].(map[string]any); meta["com.example/k"] != "v" || meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("_meta = %v", meta)
	}
}

func TestPromptArgumentChecks(t *testing.T) {
	rt := promptRuntime(t)
	e := rpcError(t, call(t, rt, "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "x"}}), jsonrpc.CodeInvalidParams)
	if !strings.Contains(e.Message, "arg2") {
		t.Fatalf("missing-argument message %q does not name arg2", e.Message)
	}
	rpcError(t, call(t, rt, "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "x", "arg2": 5}}), jsonrpc.CodeInvalidParams)
	rpcError(t, call(t, rt, "prompts/get", map[string]any{"name": "test_simple_prompt", "arguments": []any{"x"}}), jsonrpc.CodeInvalidParams)
	rpcError(t, call(t, rt, "prompts/get", map[string]any{"name": "nope"}), jsonrpc.CodeInvalidParams)
	rpcError(t, call(t, rt, "prompts/get", map[string]any{}), jsonrpc.CodeInvalidParams)
}

func TestPromptsNeedCapability(t *testing.T) {
	rt := mustNew(t)
	rpcError(t, call(t, rt, "prompts/list", nil), jsonrpc.CodeMethodNotFound)
	rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "a://b"}), jsonrpc.CodeMethodNotFound)
	rpcError(t, call(t, rt, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x"}, "argument": map[string]any{"name": "a", "value": ""}}), jsonrpc.CodeMethodNotFound)
}

func TestPromptRegistrationErrors(t *testing.T) {
	h := func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
	for name, opts := range map[string][]dispatch.Option{
		"no name":      {dispatch.WithPrompt(mcp.Prompt{}, h)},
		"no handler":   {dispatch.WithPrompt(mcp.Prompt{Name: "p"}, nil)},
		"duplicate":    {dispatch.WithPrompt(mcp.Prompt{Name: "p"}, h), dispatch.WithPrompt(mcp.Prompt{Name: "p"}, h)},
		"repeated arg": {dispatch.WithPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}, {Name: "a"}}}, h)},
	} {
		if _, err := dispatch.New(testInfo, opts...); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestPromptBadMessageIsInternal(t *testing.T) {
	logger, logs := captureLogger()
	rt := mustNew(t, dispatch.WithLogger(logger), dispatch.WithPrompt(mcp.Prompt{Name: "bad"},
		func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "system", Content: mcp.Text("x")}}}, nil
		}))
	rpcError(t, call(t, rt, "prompts/get", map[string]any{"name": "bad"}), jsonrpc.CodeInternalError)
	if !strings.Contains(logs.String(), "prompt bad") {
		t.Fatalf("failure not logged: %s", logs)
	}
}
