package client_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/mcp"
)

// The official Go SDK's conformance server, installed by the tests with
// the Go toolchain (it is not a dependency of the module).
const everythingServer = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server@v1.8.0"

var (
	installOnce sync.Once
	installPath string
	installErr  error
)

// everything returns the path of the conformance server, installing it
// on first use into a folder of the system's temporary directory.
func everything(t *testing.T) string {
	t.Helper()
	if os.Getenv("SNODO_SKIP_CONFORMANCE") != "" {
		t.Skip("SNODO_SKIP_CONFORMANCE is set: not testing against the official conformance server")
	}
	installOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "snodo-go-conformance", "everything-server-v1.8.0")
		if installErr = os.MkdirAll(dir, 0o755); installErr != nil {
			return
		}
		cmd := exec.Command("go", "install", everythingServer)
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-buildvcs=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			installErr = fmt.Errorf("go install %s: %v\n%s", everythingServer, err, out)
			return
		}
		installPath = filepath.Join(dir, "everything-server")
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	return installPath
}

// everythingHTTP starts the conformance server on a free 127.0.0.1 port
// and returns its URL. stateful selects the session mode the 2025
// revisions need.
func everythingHTTP(t *testing.T, stateful bool) string {
	t.Helper()
	path := everything(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args := []string{"-http=" + addr}
	if stateful {
		args = append(args, "-stateless=false")
	}
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Ready once it accepts connections.
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the conformance server did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/"
}

// handlers answer every kind of input request the conformance server
// asks for.
func handlers() []client.Option {
	return []client.Option{
		client.WithElicitation(func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			var schema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			}
			if len(req.RequestedSchema) > 0 {
				if err := jsonUnmarshal(req.RequestedSchema, &schema); err != nil {
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
			return &client.ElicitResult{Action: "accept", Content: content}, nil
		}, false),
		client.WithSampling(func(_ context.Context, req *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			if len(req.Messages) == 0 {
				return nil, errors.New("no messages")
			}
			return &client.CreateMessageResult{Role: "assistant", Content: client.Content{Type: "text", Text: "Bonjour"}, Model: "test-model"}, nil
		}),
		client.WithRoots(func(context.Context) ([]client.Root, error) {
			return []client.Root{{URI: "file:///tmp/project", Name: "project"}}, nil
		}),
	}
}

type everythingCase struct {
	name      string
	transport func(t *testing.T) client.Transport
	version   string
	versions  []string
}

func everythingCases() []everythingCase {
	stdio := func(t *testing.T) client.Transport { return client.Command(everything(t)) }
	return []everythingCase{
		{name: "stdio/2026-07-28", transport: stdio, version: mcp.Version20260728},
		{name: "stdio/2025-11-25", transport: stdio, version: mcp.Version20251125, versions: []string{mcp.Version20251125, mcp.Version20250618}},
		{name: "stdio/2025-06-18", transport: stdio, version: mcp.Version20250618, versions: []string{mcp.Version20250618}},
		{name: "http/2026-07-28", transport: func(t *testing.T) client.Transport { return client.HTTP(everythingHTTP(t, false)) }, version: mcp.Version20260728},
		// A stateful server names only the 2025 revisions in
		// server/discover: the client negotiates the newest through
		// initialize, with a session.
		{name: "http-stateful/2025-11-25", transport: func(t *testing.T) client.Transport { return client.HTTP(everythingHTTP(t, true)) }, version: mcp.Version20251125},
		{name: "http-stateful/2025-06-18", transport: func(t *testing.T) client.Transport { return client.HTTP(everythingHTTP(t, true)) }, version: mcp.Version20250618, versions: []string{mcp.Version20250618}},
	}
}

func TestEverythingServer(t *testing.T) {
	for _, tc := range everythingCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own server process
			opts := handlers()
			if tc.versions != nil {
				opts = append(opts, client.WithProtocolVersions(tc.versions...))
			}
			c := connect(t, tc.transport(t), opts...)
			checkEverything(t, c, tc.version, "mcp-conformance-test-server", sdkInputTexts)
			checkResourceSubscription(t, c)
		})
	}
}

// checkEverything makes the calls the conformance fixtures answer alike:
// the official Go SDK's and ours (examples/everything).
func checkEverything(t *testing.T, c *client.Client, version, server string, inputTexts map[string][]string) {
	t.Helper()
	ctx := context.Background()
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("negotiated %q, want %q", got, version)
	}
	if name := c.Server().Implementation.Name; name != server {
		t.Fatalf("server name %q", name)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasTool(tools, "test_simple_text") || !hasTool(tools, "test_tool_with_progress") {
		t.Fatalf("tools/list lacks the conformance tools: %d tools", len(tools))
	}
	res, err := c.CallTool(ctx, "test_simple_text", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "This is a simple text response for testing." {
		t.Fatalf("test_simple_text: %q", got)
	}
	var progress []client.Progress
	if _, err := c.CallTool(ctx, "test_tool_with_progress", nil, client.WithProgress(func(p client.Progress) { progress = append(progress, p) })); err != nil {
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
	if err != nil || len(gp.Messages) == 0 || !strings.Contains(gp.Messages[0].Content.Text, "alpha") || !strings.Contains(gp.Messages[0].Content.Text, "beta") {
		t.Fatalf("prompts/get: %+v, %v", gp, err)
	}
	cr, err := c.Complete(ctx, client.PromptRef("test_prompt_with_arguments"), "arg1", "a", nil)
	if err != nil || cr.Completion.Values == nil {
		t.Fatalf("completion/complete: %+v, %v", cr, err)
	}
	if version == mcp.Version20260728 {
		checkInputRequired(t, c, inputTexts)
	} else {
		checkServerRequests(t, c)
	}
}

func hasTool(tools []client.Tool, name string) bool {
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

// checkInputRequired runs the multi round-trip tools: the registered
// handlers answer every round, and each result contains the texts want
// names.
func checkInputRequired(t *testing.T, c *client.Client, want map[string][]string) {
	t.Helper()
	ctx := context.Background()
	for _, tool := range slices.Sorted(maps.Keys(sdkInputTexts)) {
		res, err := c.CallTool(ctx, tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		got := textOf(t, res)
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

// checkServerRequests: in the initialize era the server asks by
// server-to-client requests, which the same handlers answer.
func checkServerRequests(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	res, err := c.CallTool(ctx, "test_elicitation", map[string]any{"message": "Who are you?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "Elicitation result: action=accept, content=map[username:Ada]" {
		t.Fatalf("test_elicitation: %q", got)
	}
	res, err = c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "Say hello"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "LLM response: Bonjour" {
		t.Fatalf("test_sampling: %q", got)
	}
}

// checkResourceSubscription listens to the watched resource, which the
// server updates every 3 seconds, and to tool list changes.
func checkResourceSubscription(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	sub, err := c.Listen(ctx, client.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}})
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
	for ev, err := range sub.Events(ctx) {
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
		if sawTools && sawResource {
			break
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

// recorder is an http.RoundTripper that records each request's method
// and session header.
type recorder struct {
	mu   sync.Mutex
	seen []string
	next http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.Header.Get("Mcp-Session-Id"))
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// TestEverythingSessionDeletedOnClose: on an initialize-era HTTP
// connection the client sends the session the server issued on every
// request, and DELETE on Close, after which the server no longer knows it.
func TestEverythingSessionDeletedOnClose(t *testing.T) {
	url := everythingHTTP(t, true)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	rec := &recorder{next: tr}
	h := client.HTTP(url)
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
