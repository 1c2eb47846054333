package interop

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// inspector runs the MCP Inspector's CLI (@modelcontextprotocol/inspector
// 2.12.0, --cli) once against target and decodes what it prints.
func inspector(t *testing.T, target []string, out any, args ...string) {
	t.Helper()
	dir := nodeDir(t)
	launcher := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	ctx, cancel := context.WithTimeout(context.Background(), 2*callTimeout)
	defer cancel()
	argv := append(append([]string{launcher, "--cli"}, target...), args...)
	cmd := exec.CommandContext(ctx, nodeBinary(dir), argv...)
	// Its catalog of servers lives under HOME: keep it in the test's
	// folder.
	home := t.TempDir()
	cmd.Env = append(cmd.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	stderr := &testfixture.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout, stderr)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("inspector %s printed %q: %v", strings.Join(args, " "), stdout, err)
	}
}

// TestInspectorCLI calls the fixture with the Inspector's CLI over stdio,
// the native listener and the handler with sessions: tools/list,
// tools/call, resources/read and prompts/get.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	type target struct {
		name string
		argv func(t *testing.T) []string
	}
	targets := []target{{"stdio", func(*testing.T) []string { return []string{bin.everything, "-transport", "stdio"} }}}
	targets = append(targets,
		target{"native", func(t *testing.T) []string { return []string{startHTTP(t, laneNative, false).URL} }},
		target{"handler-sessions", func(t *testing.T) []string { return []string{startHTTP(t, laneHandler, true).URL} }})
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			argv := tg.argv(t)
			var tools struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			inspector(t, argv, &tools, "--method", "tools/list")
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Contains(names, "echo") || !slices.Contains(names, "test_simple_text") {
				t.Errorf("tools/list: %v", names)
			}
			var call toolResult
			inspector(t, argv, &call, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hello")
			if call.text() != "hello" || call.IsError {
				t.Errorf("tools/call: %+v", call)
			}
			var read struct{ Contents []contents }
			inspector(t, argv, &read, "--method", "resources/read", "--uri", "test://static-text")
			if len(read.Contents) != 1 || read.Contents[0].Text != "This is the content of the static text resource." {
				t.Errorf("resources/read: %+v", read)
			}
			var prompt struct {
				Messages []struct{ Content block }
			}
			inspector(t, argv, &prompt, "--method", "prompts/get", "--prompt-name", "test_prompt_with_arguments", "--prompt-args", "arg1=alpha", "arg2=beta")
			if len(prompt.Messages) != 1 || prompt.Messages[0].Content.Text != "Prompt with arguments: arg1='alpha', arg2='beta'" {
				t.Errorf("prompts/get: %+v", prompt)
			}
		})
	}
}
