package main

// The command in process: three instances of the built fixture behind
// the proxy, a session created through one used through the others.

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
)

func TestRunServesASessionThroughEveryInstance(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "everything")
	build := exec.Command("go", "build", "-o", fixture, "./examples/everything")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, out)
	}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr := &testfixture.Buffer{}
	status := make(chan int, 1)
	go func() {
		status <- run([]string{"-fixture", fixture, "-instances", "3", "-sessions"}, stdinR, stdoutW, stderr)
		_ = stdoutW.Close()
	}()
	sc := bufio.NewScanner(stdoutR)
	if !sc.Scan() {
		t.Fatalf("no ready line; log:\n%s", stderr.String())
	}
	var ready struct {
		Ready bool   `json:"conformanceReady"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal(sc.Bytes(), &ready); err != nil || !ready.Ready {
		t.Fatalf("ready line %q: %v", sc.Text(), err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdoutR) }()

	// initialize reaches i0, notifications/initialized i1; the pings
	// i2, i0, i1, i2.
	s := testfixture.OpenHTTPSession(t, ready.URL, mcp.Version20251125, nil)
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
	_ = stdinW.Close()
	if st := <-status; st != 0 {
		t.Fatalf("exit status %d; log:\n%s", st, stderr.String())
	}
	if strings.Contains(stderr.String(), "level=ERROR") {
		t.Fatalf("errors logged:\n%s", stderr.String())
	}
}
