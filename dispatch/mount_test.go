package dispatch_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// partRuntime is a part to mount: a tool that echoes the name it was
// called by and links to its guide, a prompt and a template with
// completions, a fixed resource.
func partRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	echo := func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.Text("called as " + r.Name),
			&mcp.ResourceLink{URI: "docs://guide", Name: "guide"},
			&mcp.ResourceLink{URI: "https://example.com/", Name: "elsewhere"},
		}}, nil
	}
	prompt := func(_ context.Context, r *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("prompt " + r.Name)}}}, nil
	}
	completeAs := func(_ context.Context, r *dispatch.CompleteRequest) (*mcp.Completion, error) {
		return &mcp.Completion{Values: []string{r.Name}}, nil
	}
	all := append([]dispatch.Option{
		dispatch.WithTool(mcp.Tool{Name: "search"}, echo),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "who"}}}, prompt,
			dispatch.WithCompletion("who", completeAs)),
		dispatch.WithResource(mcp.Resource{URI: "docs://guide", Name: "guide"}, okResource),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://local/{path}", Name: "files"}, okResource,
			dispatch.WithCompletion("path", completeAs)),
	}, opts...)
	return mustNew(t, all...)
}

func TestMountServesPartsUnderPrefixes(t *testing.T) {
	rt := mustNew(t,
		dispatch.WithTool(mcp.Tool{Name: "own"}, okTool),
		dispatch.WithMount("github", partRuntime(t)),
		dispatch.WithMount("docs", partRuntime(t)),
	)
	if c := rt.Capabilities(); c.Prompts == nil || c.Resources == nil || c.Completions == nil {
		t.Fatalf("the parts' capabilities are not offered: %+v", c)
	}
	tools := resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)
	if got := strings.Join(names(tools, "name"), ","); got != "docs_search,github_search,own" {
		t.Fatalf("tools: %s", got)
	}
	f := call(t, rt, "tools/call", map[string]any{"name": "github_search"})
	if text, _ := toolText(t, f); text != "called as search" {
		t.Fatalf("the part's handler saw %q", text)
	}
	// A link to what the part serves is mounted; one to elsewhere is not.
	content := resultOf(t, f)["content"].([]any)
	if u := content[1].(map[string]any)["uri"]; u != "github+docs://guide" {
		t.Fatalf("link to the part's resource: %v", u)
	}
	if u := content[2].(map[string]any)["uri"]; u != "https://example.com/" {
		t.Fatalf("link elsewhere: %v", u)
	}

	prompts := resultOf(t, call(t, rt, "prompts/list", nil))["prompts"].([]any)
	if got := strings.Join(names(prompts, "name"), ","); got != "docs_greet,github_greet" {
		t.Fatalf("prompts: %s", got)
	}
	msgs := resultOf(t, call(t, rt, "prompts/get", map[string]any{"name": "docs_greet"}))["messages"].([]any)
	if txt := msgs[0].(map[string]any)["content"].(map[string]any)["text"]; txt != "prompt greet" {
		t.Fatalf("prompt: %v", txt)
	}

	res := resultOf(t, call(t, rt, "resources/list", nil))["resources"].([]any)
	if got := strings.Join(names(res, "uri"), ","); got != "docs+docs://guide,github+docs://guide" {
		t.Fatalf("resources: %s", got)
	}
	tl := resultOf(t, call(t, rt, "resources/templates/list", nil))["resourceTemplates"].([]any)
	if got := strings.Join(names(tl, "uriTemplate"), ","); got != "docs+docs://local/{path},github+docs://local/{path}" {
		t.Fatalf("templates: %s", got)
	}
	for _, uri := range []string{"github+docs://guide", "github+docs://local/readme"} {
		contents := resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": uri}))["contents"].([]any)
		if got := contents[0].(map[string]any)["uri"]; got != uri {
			t.Fatalf("read %s: contents name %v", uri, got)
		}
	}
	// The part's own URI is not served by the outer Runtime.
	rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": "docs://guide"}), jsonrpc.CodeInvalidParams)

	for ref, want := range map[string]string{"ref/prompt": "greet", "ref/resource": "docs://local/{path}"} {
		r := map[string]any{"type": ref, "name": "github_greet", "uri": "github+docs://local/{path}"}
		arg := map[string]string{"ref/prompt": "who", "ref/resource": "path"}[ref]
		values := resultOf(t, call(t, rt, "completion/complete", map[string]any{"ref": r,
			"argument": map[string]any{"name": arg, "value": ""}}))["completion"].(map[string]any)["values"].([]any)
		if len(values) != 1 || values[0] != want {
			t.Fatalf("%s completion: the part's handler saw %v", ref, values)
		}
	}
}

func TestMountRefusesCollisionsAtConstruction(t *testing.T) {
	long := strings.Repeat("x", 60)
	for name, opts := range map[string][]dispatch.Option{
		"own tool":       {dispatch.WithTool(mcp.Tool{Name: "github_search"}, okTool), dispatch.WithMount("github", partRuntime(t))},
		"own prompt":     {dispatch.WithPrompt(mcp.Prompt{Name: "github_greet"}, okPrompt), dispatch.WithMount("github", partRuntime(t))},
		"own resource":   {dispatch.WithResource(mcp.Resource{URI: "github+docs://guide", Name: "g"}, okResource), dispatch.WithMount("github", partRuntime(t))},
		"own template":   {dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "github+docs://{x}", Name: "g"}, okResource), dispatch.WithMount("github", partRuntime(t))},
		"same template":  {dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "github+docs://local/{path}", Name: "g"}, okResource), dispatch.WithMount("github", partRuntime(t))},
		"long tool name": {dispatch.WithMount("github", mustNew(t, dispatch.WithTool(mcp.Tool{Name: long}, okTool)))},
		"same prefix":    {dispatch.WithMount("github", partRuntime(t)), dispatch.WithMount("github", partRuntime(t))},
		"prefix with _":  {dispatch.WithMount("git_hub", partRuntime(t))},
		"prefix with +":  {dispatch.WithMount("git+hub", partRuntime(t))},
		"empty prefix":   {dispatch.WithMount("", partRuntime(t))},
		"digit first":    {dispatch.WithMount("1github", partRuntime(t))},
		"nil part":       {dispatch.WithMount("github", nil)},
	} {
		if _, err := dispatch.New(testInfo, opts...); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

func TestMountAppliesBothAuthorizers(t *testing.T) {
	// The part conceals its tool "secret" and refuses its template to
	// "guest"; the outer Runtime hides the mounted "github_search".
	part := partRuntime(t,
		dispatch.WithTool(mcp.Tool{Name: "secret"}, okTool),
		dispatch.WithAuthorizer(dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
			switch {
			case a.Name == "secret":
				return dispatch.ErrConceal
			case a.Kind == dispatch.KindResourceTemplate && a.Info.Principal == "guest":
				if a.URI != "" && a.URI != "docs://local/x" {
					return errors.New("the part's Authorizer was asked about a mounted URI")
				}
				return &jsonrpc.Error{Code: -32001, Message: "not for guests"}
			}
			return nil
		})))
	var mu sync.Mutex
	var asked []string
	rt := mustNew(t, dispatch.WithMount("github", part),
		dispatch.WithAuthorizer(dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
			mu.Lock()
			asked = append(asked, a.Name)
			mu.Unlock()
			if a.Name == "github_search" {
				return dispatch.ErrConceal
			}
			return nil
		})))
	tools := resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)
	if got := strings.Join(names(tools, "name"), ","); got != "" {
		t.Fatalf("tools either Authorizer hides are listed: %s", got)
	}
	for _, name := range []string{"github_search", "github_secret"} {
		e := rpcError(t, call(t, rt, "tools/call", map[string]any{"name": name}), jsonrpc.CodeInvalidParams)
		if !strings.Contains(e.Message, "Unknown tool: "+name) {
			t.Fatalf("%s: %s", name, e.Message)
		}
	}
	mu.Lock()
	if !strings.Contains(strings.Join(asked, ","), "github_secret") {
		t.Fatalf("the outer Authorizer was not asked about the mounted name: %v", asked)
	}
	mu.Unlock()
	guest := func(r *dispatch.Request) { r.Principal = "guest" }
	f := callWith(t, rt, "resources/read", map[string]any{"uri": "github+docs://local/x"}, guest)
	if e := rpcError(t, f, -32001); e.Message != "not for guests" {
		t.Fatalf("the part's refusal: %s", e.Message)
	}
	tl := resultOf(t, callWith(t, rt, "resources/templates/list", nil, guest))["resourceTemplates"].([]any)
	if len(tl) != 0 {
		t.Fatalf("a template the part hides is listed: %v", tl)
	}
	resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "github+docs://local/x"}))
}

func TestMountFollowsAndRelaysPartChanges(t *testing.T) {
	partHub := hub.New(hub.Options{})
	partReg := hub.NewRegistry(partHub)
	part := mustNew(t, dispatch.WithCatalog(partReg))
	logger, logs := captureLogger()
	ownHub := hub.New(hub.Options{})
	ownReg := hub.NewRegistry(ownHub)
	rt := mustNew(t, dispatch.WithSubscriptions(ownHub), dispatch.WithCatalog(ownReg), dispatch.WithLogger(logger),
		dispatch.WithMount("github", part))
	if c := rt.Capabilities(); c.Tools == nil || !c.Tools.ListChanged || c.Resources == nil || !c.Resources.ListChanged {
		t.Fatalf("capabilities: %+v", c)
	}
	w := newWaker()
	s := openStream(t, rt, "watch", map[string]any{"toolsListChanged": true, "resourcesListChanged": true}, w)
	next(t, s) // acknowledgement
	next(t, s) // idle now

	if err := partReg.AddTool(mcp.Tool{Name: "late"}, okTool); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	if f, _ := next(t, s); decodeFrame(t, f).Method != "notifications/tools/list_changed" {
		t.Fatalf("the part's change: %s", f)
	}
	next(t, s) // idle again
	tools := resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)
	if got := strings.Join(names(tools, "name"), ","); got != "github_late" {
		t.Fatalf("tools: %s", got)
	}
	if err := partReg.AddResource(mcp.Resource{URI: "docs://new", Name: "new"}, okResource); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	if f, _ := next(t, s); decodeFrame(t, f).Method != "notifications/resources/list_changed" {
		t.Fatalf("the part's resource change: %s", f)
	}
	resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "github+docs://new"}))

	// A collision that arises at run time: the Runtime's own tool wins
	// and the mounted one is left out, logged.
	own := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("own"), nil
	}
	if err := ownReg.AddTool(mcp.Tool{Name: "github_late"}, own); err != nil {
		t.Fatal(err)
	}
	if text, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "github_late"})); text != "own" {
		t.Fatalf("the colliding call reached %q", text)
	}
	if !strings.Contains(logs.String(), `tool \"github_late\" is already served`) {
		t.Fatalf("the collision was not logged: %s", logs.String())
	}
	if !partReg.RemoveTool("late") {
		t.Fatal("RemoveTool")
	}
	tools = resultOf(t, call(t, rt, "tools/list", nil))["tools"].([]any)
	if got := strings.Join(names(tools, "name"), ","); got != "github_late" {
		t.Fatalf("tools: %s", got)
	}
}

func TestMountOfAMount(t *testing.T) {
	inner := mustNew(t, dispatch.WithMount("a", partRuntime(t)))
	rt := mustNew(t, dispatch.WithMount("b", inner))
	if text, _ := toolText(t, call(t, rt, "tools/call", map[string]any{"name": "b_a_search"})); text != "called as search" {
		t.Fatalf("nested call: %q", text)
	}
	contents := resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "b+a+docs://guide"}))["contents"].([]any)
	if got := contents[0].(map[string]any)["uri"]; got != "b+a+docs://guide" {
		t.Fatalf("nested read: %v", got)
	}
	if p, in, ok := dispatch.UnmountURI("b+a+docs://guide"); !ok || p != "b" || in != "a+docs://guide" {
		t.Fatalf("UnmountURI: %q %q %v", p, in, ok)
	}
	if _, _, ok := dispatch.UnmountURI("docs://guide"); ok {
		t.Fatal("UnmountURI accepted a URI with no prefix")
	}
}

// A part's resource updates reach the listeners of the mounted URI.
func TestMountRelaysResourceUpdates(t *testing.T) {
	partHub := hub.New(hub.Options{})
	part := partRuntime(t, dispatch.WithSubscriptions(partHub))
	hub := hub.New(hub.Options{})
	mustNew(t, dispatch.WithSubscriptions(hub), dispatch.WithMount("github", part))
	l := hub.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{"github+docs://guide"}}, nil)
	defer l.Close()
	if _, err := partHub.ResourceUpdated("docs://guide"); err != nil {
		t.Fatal(err)
	}
	if _, err := partHub.ResourceUpdated("docs://other"); err != nil {
		t.Fatal(err)
	}
	ev, err := l.Next()
	if err != nil || ev.Kind != dispatch.EventResourceUpdated || ev.URI != "github+docs://guide" {
		t.Fatalf("relayed event: %+v %v", ev, err)
	}
	if ev, err := l.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatalf("an update nobody subscribed to arrived: %+v %v", ev, err)
	}
}
