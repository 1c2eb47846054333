package dispatch_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
)

func completionRuntime(t *testing.T) *dispatch.Runtime {
	t.Helper()
	languages := []string{"go", "gleam", "python", "pascal"}
	complete := func(_ context.Context, r *dispatch.CompleteRequest) (*dispatch.Completion, error) {
		var out []string
		for _, l := range languages {
			if strings.HasPrefix(l, r.Value) {
				out = append(out, l)
			}
		}
		return &dispatch.Completion{Values: out, Total: len(out)}, nil
	}
	many := func(context.Context, *dispatch.CompleteRequest) (*dispatch.Completion, error) {
		out := make([]string, 250)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return &dispatch.Completion{Values: out}, nil
	}
	ph := func(context.Context, *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
		return &dispatch.GetPromptResult{Messages: []dispatch.PromptMessage{{Role: dispatch.RoleUser, Content: dispatch.Text("x")}}}, nil
	}
	rh := func(_ context.Context, r *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
		return &dispatch.ReadResourceResult{Contents: []*dispatch.ResourceContents{dispatch.TextContents(r.URI, "", "x")}}, nil
	}
	return mustNew(t,
		dispatch.WithPrompt(dispatch.Prompt{Name: "test_prompt_with_arguments", Arguments: []dispatch.PromptArgument{{Name: "arg1"}, {Name: "arg2"}}}, ph),
		dispatch.WithPrompt(dispatch.Prompt{Name: "review", Arguments: []dispatch.PromptArgument{
			{Name: "language", Complete: complete}, {Name: "many", Complete: many},
		}}, ph),
		dispatch.WithResourceTemplate(dispatch.ResourceTemplate{URITemplate: "code://{language}/{file}", Name: "code",
			Complete: map[string]dispatch.CompletionHandler{"language": complete}}, rh),
	)
}

func complete(t *testing.T, rt *dispatch.Runtime, ref map[string]any, arg, value string) map[string]any {
	t.Helper()
	r := resultOf(t, call(t, rt, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}))
	return r["completion"].(map[string]any)
}

func TestCompletion(t *testing.T) {
	rt := completionRuntime(t)
	caps := resultOf(t, call(t, rt, "server/discover", nil))["capabilities"].(map[string]any)
	if _, ok := caps["completions"]; !ok {
		t.Fatalf("completions not advertised: %v", caps)
	}
	c := complete(t, rt, map[string]any{"type": "ref/prompt", "name": "review"}, "language", "g")
	if !reflect.DeepEqual(c["values"], []any{"go", "gleam"}) || c["total"] != float64(2) {
		t.Fatalf("prompt completion = %v", c)
	}
	c = complete(t, rt, map[string]any{"type": "ref/resource", "uri": "code://{language}/{file}"}, "language", "p")
	if !reflect.DeepEqual(c["values"], []any{"python", "pascal"}) {
		t.Fatalf("template completion = %v", c)
	}
	// An argument nothing completes gets no suggestions, not an error.
	c = complete(t, rt, map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "")
	if !reflect.DeepEqual(c["values"], []any{}) {
		t.Fatalf("uncompleted argument = %v", c)
	}
	c = complete(t, rt, map[string]any{"type": "ref/resource", "uri": "code://{language}/{file}"}, "file", "")
	if !reflect.DeepEqual(c["values"], []any{}) {
		t.Fatalf("uncompleted variable = %v", c)
	}
	c = complete(t, rt, map[string]any{"type": "ref/prompt", "name": "review"}, "many", "")
	if len(c["values"].([]any)) != 100 || c["hasMore"] != true || c["total"] != float64(250) {
		t.Fatalf("capped completion: %d values, %v", len(c["values"].([]any)), c["hasMore"])
	}
}

func TestCompletionErrors(t *testing.T) {
	rt := completionRuntime(t)
	for name, params := range map[string]map[string]any{
		"unknown prompt":   {"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "a", "value": ""}},
		"unknown argument": {"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "nope", "value": ""}},
		"unknown template": {"ref": map[string]any{"type": "ref/resource", "uri": "x://{y}"}, "argument": map[string]any{"name": "y", "value": ""}},
		"unknown variable": {"ref": map[string]any{"type": "ref/resource", "uri": "code://{language}/{file}"}, "argument": map[string]any{"name": "nope", "value": ""}},
		"no argument":      {"ref": map[string]any{"type": "ref/prompt", "name": "review"}},
	} {
		f := call(t, rt, "completion/complete", params)
		if f.Error == nil || f.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %s", name, f.Raw)
		}
	}
}
