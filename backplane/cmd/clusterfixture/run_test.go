package main

// The command in process: three instances of the fixture behind the
// proxy, a session created through one used through the others, and
// a multi round-trip call whose rounds reach different instances.

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestRunServesASessionThroughEveryInstance(t *testing.T) {
	c := startCluster(t, "-sessions")

	// initialize reaches i0, notifications/initialized i1; the pings
	// i2, i0, i1, i2.
	s := testfixture.OpenHTTPSession(t, c.url, mcp.Version20251125, nil)
	if !strings.HasPrefix(s.ID, "i0.") {
		t.Fatalf("session id %q", s.ID)
	}
	for i := range 4 {
		if f := s.Call(t, i+1, "ping", nil); string(f.Result) != "{}" {
			t.Fatalf("ping %d: %s", i, f.Raw)
		}
	}
	if st := s.Delete(t); st != http.StatusNoContent {
		t.Fatalf("DELETE: %d", st)
	}
	c.stop(t)
}

// The multi round-trip state sealed by the instance that answered the
// first round (i0) is accepted by the one that gets the retry (i1):
// every instance is given the same key.
func TestRunSharesTheRequestStateKey(t *testing.T) {
	c := startCluster(t)
	const tool = "test_input_required_result_request_state"
	call := func(id int, params map[string]any) map[string]any {
		t.Helper()
		params["name"], params["arguments"] = tool, map[string]any{}
		params["_meta"] = map[string]any{mcp.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
		f := testfixture.PostMCP(t, nil, c.url, testkit.Request(id, "tools/call", params), nil).Last()
		if f.Error != nil {
			t.Fatalf("round %d: %s", id, f.Raw)
		}
		var res map[string]any
		if err := json.Unmarshal(f.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call(1, map[string]any{})
	state, ok := first["requestState"].(string)
	if !ok || first["resultType"] != "input_required" {
		t.Fatalf("first round: %v", first)
	}
	second := call(2, map[string]any{"requestState": state,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	if text, _ := json.Marshal(second["content"]); !strings.Contains(string(text), "state-ok") {
		t.Fatalf("retry on another instance: %v", second)
	}
	c.stop(t)
}

// cluster is the command running in process.
type cluster struct {
	url    string
	stdin  io.Closer
	status chan int
	stderr *testfixture.Buffer
}

// startCluster runs the command with three instances and the extra
// flags, until its ready line.
func startCluster(t *testing.T, flags ...string) *cluster {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	c := &cluster{stdin: stdinW, status: make(chan int, 1), stderr: &testfixture.Buffer{}}
	go func() {
		c.status <- run(append([]string{"-instances", "3"}, flags...), stdinR, stdoutW, c.stderr)
		_ = stdoutW.Close()
	}()
	sc := bufio.NewScanner(stdoutR)
	if !sc.Scan() {
		t.Fatalf("no ready line; log:\n%s", c.stderr.String())
	}
	var ready struct {
		Ready bool   `json:"conformanceReady"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal(sc.Bytes(), &ready); err != nil || !ready.Ready {
		t.Fatalf("ready line %q: %v", sc.Text(), err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdoutR) }()
	c.url = ready.URL
	return c
}

// stop closes the command's standard input and checks that it ends
// cleanly, with no error logged.
func (c *cluster) stop(t *testing.T) {
	t.Helper()
	_ = c.stdin.Close()
	if st := <-c.status; st != 0 {
		t.Fatalf("exit status %d; log:\n%s", st, c.stderr.String())
	}
	if strings.Contains(c.stderr.String(), "level=ERROR") {
		t.Fatalf("errors logged:\n%s", c.stderr.String())
	}
}
