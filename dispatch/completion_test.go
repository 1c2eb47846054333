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

func completionRuntime(t *testing.T) *dispatch.Runtime {
	t.Helper()
	languages := []string{"go", "gleam", "python", "pascal"}
	complete := func(_ context.Context, r *dispatch.CompleteRequest) (*mcp.Completion, error) {
		var out []string
		for _, l := range languages {
			if strings.HasPrefix(l, r.Value) {
				out = append(out, l)
			}
		}
		return &mcp.Completion{Values: out, Total: len(out)}, nil
	}
	many := func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) {
		out := make([]string, 250)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return &mcp.Completion{Values: out}, nil
	}
	ph := func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("x")}}}, nil
	}
	rh := func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "", "x")}}, nil
	}
	return mustNew(t,
		dispatch.WithPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Arguments: []mcp.PromptArgument{{Name: "arg1"}, {Name: "arg2"}}}, ph),
		dispatch.WithPrompt(mcp.Prompt{Name: "review", Arguments: []mcp.PromptArgument{
			{Name: "language"}, {Name: "many"},
		}}, ph, dispatch.WithCompletion("language", complete), dispatch.WithCompletion("many", many)),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "code://{language}/{file}", Name: "code"}, rh,
			dispatch.WithCompletion("language", complete)),
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

func TestWithCompletionIsChecked(t *testing.T) {
	ph := func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
	ch := func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) { return nil, nil }
	p := mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}}}
	cases := map[string]struct {
		opt  dispatch.Option
		want string
	}{
		"unknown argument": {dispatch.WithPrompt(p, ph, dispatch.WithCompletion("b", ch)), `prompt "p" completes unknown argument "b"`},
		"nil handler":      {dispatch.WithPrompt(p, ph, dispatch.WithCompletion("a", nil)), `prompt "p": nil completion handler for "a"`},
		"twice":            {dispatch.WithPrompt(p, ph, dispatch.WithCompletion("a", ch), dispatch.WithCompletion("a", ch)), `prompt "p": "a" is completed twice`},
		"no name":          {dispatch.WithPrompt(p, ph, dispatch.WithCompletion("", ch)), `prompt "p": a completion needs an argument or variable name`},
		"nil option":       {dispatch.WithPrompt(p, ph, nil), `prompt "p": nil option`},
	}
	for name, tc := range cases {
		_, err := dispatch.New(testInfo, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
