// The repository's own client (package client) against the official Go
// SDK's conformance server and against the fixture.

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// sdkServerHTTP starts the official Go SDK's conformance server on
// 127.0.0.1:0 and returns its URL, read from the socket it listens on.
// stateful selects the session mode the 2025 revisions need.
func sdkServerHTTP(t *testing.T, stateful bool) string {
	t.Helper()
	args := []string{"-http=127.0.0.1:0"}
	if stateful {
		args = append(args, "-stateless=false")
	}
	cmd := exec.Command(bin.sdkServer, args...)
	stderr := &testfixture.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr, err := listeningAddr(cmd.Process.Pid, exited, readyTimeout)
	if err != nil {
		t.Fatalf("the Go SDK's conformance server: %v: %s", err, stderr)
	}
	return "http://" + addr + "/"
}

// TestSnodoClientFixture makes the conformance calls against our own fixture on
// each of its lanes, with every frame it sends checked against the schema.
func TestSnodoClientFixture(t *testing.T) {
	t.Parallel()
	lanes := map[string]func(t *testing.T) client.Transport{
		"stdio": func(t *testing.T) client.Transport {
			return &client.CommandTransport{Path: bin.everything, Args: []string{"-transport", "stdio"}}
		},
		"http": func(t *testing.T) client.Transport {
			return &client.HTTPTransport{URL: startHTTP(t, laneNative, false).URL}
		},
		"handler": func(t *testing.T) client.Transport {
			return &client.HTTPTransport{URL: startHTTP(t, laneHandler, false).URL}
		},
	}
	for name, lane := range lanes {
		t.Run(name, func(t *testing.T) {
			c := testkit.Connect(t, lane(t), snodoHandlers()...)
			snodoCheckEverything(t, c, mcp.Version20260728, c.Server().Implementation.Name, ourInputTexts)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}})
			if err != nil {
				// Until our server serves subscriptions.
				if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}) {
					t.Fatalf("listen: %v", err)
				}
				return
			}
			sub.Close()
			snodoCheckListen(t, c)
		})
	}
}

// ourInputTexts are what our fixture answers to the multi round-trip
// tools once the handlers have answered.
var ourInputTexts = map[string][]string{
	"test_input_required_result_elicitation":     {"Hello, Ada!"},
	"test_input_required_result_sampling":        {"Bonjour"},
	"test_input_required_result_list_roots":      {"file:///tmp/project"},
	"test_input_required_result_request_state":   {"state-ok"},
	"test_input_required_result_multiple_inputs": {"name=Ada", `greeting="Bonjour"`, "roots=file:///tmp/project"},
	"test_input_required_result_multi_round":     {"Ada likes Ada"},
}

// snodoConnect connects this repository's client and closes it when the
// test ends.
func snodoConnect(t *testing.T, tr client.Transport, opts ...client.Option) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := client.New(ctx, tr, opts...)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	return c
}

// snodoText is the one text block of a result.
func snodoText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if _, ok := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || !ok {
		t.Fatalf("want one text block, got %+v", res.Content)
	}
	return mcp.TextOf(res.Content)
}

// snodoHandlers answer every kind of input request the conformance server
// asks for.
func snodoHandlers() []client.Option {
	return []client.Option{
		client.WithElicitation(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			var schema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			}
			if len(req.RequestedSchema) > 0 {
				if err := json.Unmarshal(req.RequestedSchema, &schema); err != nil {
					return nil, err
				}
			}
			content := map[string]any{}
			for name, p := range schema.Properties {
				switch p.Type {
				case "boolean":
					content[name] = true
				case "integer", "number":
					content[name] = 1
				default:
					content[name] = "Ada"
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		}),
		client.WithSampling(func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if len(req.Messages) == 0 {
				return nil, errors.New("no messages")
			}
			return &mcp.CreateMessageResult{Role: "assistant", Content: []mcp.Content{mcp.Text("Bonjour")}, Model: "test-model"}, nil
		}),
		client.WithRoots(func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///tmp/project", Name: "project"}}, nil
		}),
	}
}

type sdkServerCase struct {
	name      string
	transport func(t *testing.T) client.Transport
	version   string
	versions  []string
}

func sdkServerCases() []sdkServerCase {
	stdio := func(t *testing.T) client.Transport { return &client.CommandTransport{Path: bin.sdkServer} }
	return []sdkServerCase{
		{name: "stdio/2026-07-28", transport: stdio, version: mcp.Version20260728},
		{name: "stdio/2025-11-25", transport: stdio, version: mcp.Version20251125, versions: []string{mcp.Version20251125, mcp.Version20250618}},
		{name: "stdio/2025-06-18", transport: stdio, version: mcp.Version20250618, versions: []string{mcp.Version20250618}},
		{name: "http/2026-07-28", transport: func(t *testing.T) client.Transport { return &client.HTTPTransport{URL: sdkServerHTTP(t, false)} }, version: mcp.Version20260728},
		// A stateful server names only the 2025 revisions in
		// server/discover: the client negotiates the newest through
		// initialize, with a session.
		{name: "http-stateful/2025-11-25", transport: func(t *testing.T) client.Transport { return &client.HTTPTransport{URL: sdkServerHTTP(t, true)} }, version: mcp.Version20251125},
		{name: "http-stateful/2025-06-18", transport: func(t *testing.T) client.Transport { return &client.HTTPTransport{URL: sdkServerHTTP(t, true)} }, version: mcp.Version20250618, versions: []string{mcp.Version20250618}},
	}
}

func TestSnodoClientGoSDKServer(t *testing.T) {
	t.Parallel()
	for _, tc := range sdkServerCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own server process
			opts := snodoHandlers()
			if tc.versions != nil {
				opts = append(opts, client.WithProtocolVersions(tc.versions...))
			}
			c := snodoConnect(t, tc.transport(t), opts...)
			snodoCheckEverything(t, c, tc.version, "mcp-conformance-test-server", sdkInputTexts)
			snodoCheckListen(t, c)
		})
	}
}

// snodoCheckEverything makes the calls the conformance fixtures answer alike:
// the official Go SDK's and ours (examples/everything).
func snodoCheckEverything(t *testing.T, c *client.Client, version, server string, inputTexts map[string][]string) {
	t.Helper()
	ctx := context.Background()
	if got := c.Server().ProtocolVersion; got != version {
		t.Fatalf("negotiated %q, want %q", got, version)
	}
	if name := c.Server().Implementation.Name; name != server {
		t.Fatalf("server name %q", name)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !snodoHasTool(tools, "test_simple_text") || !snodoHasTool(tools, "test_tool_with_progress") {
		t.Fatalf("tools/list lacks the conformance tools: %d tools", len(tools))
	}
	res, err := c.CallTool(ctx, "test_simple_text", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := snodoText(t, res); got != "This is a simple text response for testing." {
		t.Fatalf("test_simple_text: %q", got)
	}
	var progress []mcp.Progress
	if _, err := c.CallTool(ctx, "test_tool_with_progress", nil, client.WithProgress(func(p mcp.Progress) { progress = append(progress, p) })); err != nil {
		t.Fatal(err)
	}
	if len(progress) < 3 || progress[len(progress)-1].Progress != 100 {
		t.Fatalf("progress: %+v", progress)
	}
	res, err = c.CallTool(ctx, "test_error_handling", nil)
	if err != nil || !res.IsError {
		t.Fatalf("test_error_handling: %+v, %v", res, err)
	}
	rr, err := c.ReadResource(ctx, "test://static-text")
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "This is the content of the static text resource." {
		t.Fatalf("resources/read: %+v, %v", rr, err)
	}
	rr, err = c.ReadResource(ctx, "test://template/123/data")
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "123") {
		t.Fatalf("template read: %+v, %v", rr, err)
	}
	resources, err := c.ListResources(ctx)
	if err != nil || len(resources) == 0 {
		t.Fatalf("resources/list: %d, %v", len(resources), err)
	}
	templates, err := c.ListResourceTemplates(ctx)
	if err != nil || len(templates) == 0 {
		t.Fatalf("resources/templates/list: %d, %v", len(templates), err)
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) == 0 {
		t.Fatalf("prompts/list: %d, %v", len(prompts), err)
	}
	gp, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "alpha", "arg2": "beta"})
	if err != nil || len(gp.Messages) == 0 || !strings.Contains(mcp.TextOf([]mcp.Content{gp.Messages[0].Content}), "alpha") || !strings.Contains(mcp.TextOf([]mcp.Content{gp.Messages[0].Content}), "beta") {
		t.Fatalf("prompts/get: %+v, %v", gp, err)
	}
	cr, err := c.Complete(ctx, mcp.Reference{Type: mcp.RefPrompt, Name: "test_prompt_with_arguments"}, "arg1", "a", nil)
	if err != nil || cr.Completion.Values == nil {
		t.Fatalf("completion/complete: %+v, %v", cr, err)
	}
	if version == mcp.Version20260728 {
		snodoCheckInputRequired(t, c, inputTexts)
	} else {
		snodoCheckServerRequests(t, c)
	}
}

func snodoHasTool(tools []mcp.Tool, name string) bool {
	for _, tl := range tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}

// sdkInputTexts are what the Go SDK's fixture answers to the multi
// round-trip tools once the handlers have answered.
var sdkInputTexts = map[string][]string{
	"test_input_required_result_elicitation":     {"Hello, Ada!"},
	"test_input_required_result_sampling":        {"Bonjour"},
	"test_input_required_result_list_roots":      {"Client exposed 1 root(s): file:///tmp/project"},
	"test_input_required_result_request_state":   {"state-ok"},
	"test_input_required_result_multiple_inputs": {"Bonjour Ada"},
	"test_input_required_result_multi_round":     {"Multi-round complete"},
}

// snodoCheckInputRequired runs the multi round-trip tools: the registered
// handlers answer every round, and each result contains the texts want
// names.
func snodoCheckInputRequired(t *testing.T, c *client.Client, want map[string][]string) {
	t.Helper()
	ctx := context.Background()
	for _, tool := range slices.Sorted(maps.Keys(sdkInputTexts)) {
		res, err := c.CallTool(ctx, tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		got := snodoText(t, res)
		if len(want[tool]) == 0 {
			t.Fatalf("%s: no expectation for %q", tool, got)
		}
		for _, w := range want[tool] {
			if !strings.Contains(got, w) {
				t.Fatalf("%s: %q, want it to contain %q", tool, got, w)
			}
		}
	}
	gp, err := c.GetPrompt(ctx, "test_input_required_result_prompt", nil)
	if err != nil || len(gp.Messages) == 0 {
		t.Fatalf("MRTR prompt: %+v, %v", gp, err)
	}
}

// snodoCheckServerRequests: in the initialize era the server asks by
// server-to-client requests, which the same handlers answer.
func snodoCheckServerRequests(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	res, err := c.CallTool(ctx, "test_elicitation", map[string]any{"message": "Who are you?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := snodoText(t, res); got != "Elicitation result: action=accept, content=map[username:Ada]" {
		t.Fatalf("test_elicitation: %q", got)
	}
	res, err = c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "Say hello"})
	if err != nil {
		t.Fatal(err)
	}
	if got := snodoText(t, res); got != "LLM response: Bonjour" {
		t.Fatalf("test_sampling: %q", got)
	}
}

// snodoCheckListen listens to the watched resource, which the
// server updates every 3 seconds, and to tool list changes.
func snodoCheckListen(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ack := sub.Acknowledged()
	if !ack.ToolsListChanged || len(ack.ResourceSubscriptions) != 1 {
		t.Fatalf("acknowledged %+v", ack)
	}
	if _, err := c.CallTool(ctx, "test_trigger_tool_change", nil); err != nil {
		t.Fatal(err)
	}
	var sawTools, sawResource bool
	for !sawTools || !sawResource {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("listen: %v (tools %v, resource %v)", err, sawTools, sawResource)
		}
		switch ev.Method {
		case "notifications/tools/list_changed":
			sawTools = true
		case "notifications/resources/updated":
			if ev.URI != "test://watched-resource" {
				t.Fatalf("update for %q", ev.URI)
			}
			sawResource = true
		}
	}
	if !sawTools || !sawResource {
		t.Fatalf("events: tools %v, resource %v", sawTools, sawResource)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(sub.Err(), client.ErrClosed) {
		t.Fatalf("after Close: %v", sub.Err())
	}
}

// sessionRecorder is an http.RoundTripper that records each request's method
// and session header.
type sessionRecorder struct {
	mu   sync.Mutex
	seen []string
	next http.RoundTripper
}

func (r *sessionRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.Header.Get("Mcp-Session-Id"))
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// TestSnodoClientSessionDeletedOnClose: on an initialize-era HTTP
// connection the client sends the session the server issued on every
// request, and DELETE on Close, after which the server no longer knows it.
func TestSnodoClientSessionDeletedOnClose(t *testing.T) {
	t.Parallel()
	url := sdkServerHTTP(t, true)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	rec := &sessionRecorder{next: tr}
	h := &client.HTTPTransport{URL: url}
	h.Client = &http.Client{Transport: rec}
	ctx := context.Background()
	c, err := client.New(ctx, h, client.WithProtocolVersions(mcp.Version20251125))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	seen := append([]string(nil), rec.seen...)
	rec.mu.Unlock()
	// initialize (no session yet), notifications/initialized, tools/list,
	// DELETE: all but the first carry the session.
	if len(seen) != 4 || seen[0] != "POST " || seen[3] != "DELETE "+strings.TrimPrefix(seen[1], "POST ") {
		t.Fatalf("requests: %q", seen)
	}
	session := strings.TrimPrefix(seen[1], "POST ")
	if session == "" || seen[2] != "POST "+session {
		t.Fatalf("requests: %q", seen)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the deleted session still answers: %d", resp.StatusCode)
	}
}
