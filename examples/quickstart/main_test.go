package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestTools(t *testing.T) {
	rt, err := newRuntime(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartStdio(t, rt)
	for tool, want := range map[string]string{"echo": "Grüße", "upper": "GRÜßE"} {
		resp := srv.Client.Call(t, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"text": "Grüße"}})
		var r struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(resp.Result, &r); err != nil || len(r.Content) != 1 || r.Content[0].Text != want {
			t.Fatalf("%s: %s", tool, resp.Raw)
		}
	}
	// A sleep that is cancelled ends without a response.
	srv.Send(t, testkit.Request("s", "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}}))
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "s"}))
	testkit.WaitNoRequests(t, srv.Sup)
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	for _, f := range srv.Client.WaitClosed(t) {
		if string(f.ID) == `"s"` {
			t.Fatalf("cancelled sleep answered: %s", f.Raw)
		}
	}
}

// The command the README gives prints both responses and exits 0.
func TestReadmeCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var requests []string
	for _, line := range strings.Split(string(readme), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, `'{"jsonrpc"`) {
			requests = append(requests, strings.Trim(strings.TrimSuffix(line, `\`), ` '`))
		}
	}
	if len(requests) != 2 {
		t.Fatalf("found %d requests in the README, want 2", len(requests))
	}
	bin := filepath.Join(t.TempDir(), "quickstart")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = strings.NewReader(requests[0] + "\n" + requests[1] + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout has %d lines, want 2:\n%s", len(lines), stdout.String())
	}
	// Requests run concurrently, so the responses may come in either
	// order; each is matched to its request by id.
	methods := map[string]string{"1": "server/discover", "2": "tools/call"}
	byID := map[string]string{}
	for i, line := range lines {
		var head struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(line), &head); err != nil || methods[string(head.ID)] == "" {
			t.Fatalf("line %d is not a response to the README's requests: %s", i+1, line)
		}
		if err := testkit.ValidateFrame(testfixture.Version, []byte(line), methods[string(head.ID)]); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
		byID[string(head.ID)] = line
	}
	if len(byID) != 2 {
		t.Fatalf("the responses do not answer both requests:\n%s", stdout.String())
	}
	if !strings.Contains(byID["2"], `"text":"hello"`) {
		t.Fatalf("echo response: %s", byID["2"])
	}
}
