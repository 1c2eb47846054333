package interop

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// Transports the fixture is served on.
const (
	laneStdio   = "stdio"   // the client starts the fixture and speaks on its stdin and stdout
	laneNative  = "native"  // the library's own HTTP listener
	laneHandler = "handler" // the library's http.Handler in a plain net/http server
)

var lanes = []string{laneStdio, laneNative, laneHandler}

// Protocol versions; "" is a client's default mode.
const (
	v20260728 = "2026-07-28"
	v20251125 = "2025-11-25"
	v20250618 = "2025-06-18"
)

// errorLines returns the lines of a slog text log at level ERROR.
func errorLines(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "level=ERROR") {
			out = append(out, line)
		}
	}
	return out
}

// httpServer is a fixture process serving one HTTP lane.
type httpServer struct {
	URL    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *testfixture.Buffer
	exited chan struct{}
}

// readyTimeout bounds how long a child may take to say it listens.
const readyTimeout = 30 * time.Second

// startHTTP starts the fixture on an HTTP lane (sessions for the
// initialize-era revisions) and returns once it has printed its ready
// line, which names the address it bound (it listens on 127.0.0.1:0).
// The test's cleanup stops it and checks that it exited cleanly.
func startHTTP(t *testing.T, lane string, sessions bool, extra ...string) *httpServer {
	t.Helper()
	transport := map[string]string{laneNative: "http", laneHandler: "handler"}[lane]
	if transport == "" {
		t.Fatalf("no HTTP lane %q", lane)
	}
	args := append([]string{"-transport", transport}, extra...)
	if sessions {
		args = append(args, "-sessions")
	}
	s := &httpServer{cmd: exec.Command(bin.everything, args...), stderr: &testfixture.Buffer{}, exited: make(chan struct{})}
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.stdin = stdin
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var line struct {
				Ready bool   `json:"conformanceReady"`
				URL   string `json:"url"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Ready {
				ready <- line.URL
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.URL = <-ready:
	case <-s.exited:
		t.Fatalf("the fixture exited before it was ready: %s", s.stderr)
	case <-time.After(readyTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Fatalf("the fixture was not ready within %s: %s", readyTimeout, s.stderr)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stopTimeout bounds a clean stop: the fixture drains for at most 5 s.
const stopTimeout = 15 * time.Second

// stop closes the fixture's standard input, which is its signal to shut
// down, and checks that it exited with status 0 and logged no error.
func (s *httpServer) stop(t *testing.T) {
	t.Helper()
	_ = s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("the fixture did not stop within %s after its input closed", stopTimeout)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the fixture exited with status %d: %s", code, s.stderr)
	}
	if lines := errorLines(s.stderr.String()); len(lines) > 0 {
		t.Errorf("the fixture logged errors:\n%s", strings.Join(lines, "\n"))
	}
}
