package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// serverTarget says how a client reaches the server under test: a command
// it starts (stdio) or a URL.
type serverTarget struct {
	lane     string
	sessions bool             // HTTP: the server keeps initialize-era sessions
	command  func() *exec.Cmd // stdio: a new, unstarted fixture process
	argv     []string         // stdio: the same command as an argument list
	url      string           // HTTP: the endpoint
	server   *httpServer      // HTTP: the fixture process
}

// roundTripper returns a fresh HTTP transport whose idle connections are
// closed when the test ends, so no keep-alive goroutine outlives it.
func (st serverTarget) roundTripper(t *testing.T) http.RoundTripper {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// fixtureArgs are the fixture flags every walk uses: a small page size,
// so that every list has several pages.
var fixtureArgs = []string{"-page-size", "4"}

// targetFor starts (HTTP) or describes (stdio) the fixture on a lane.
func targetFor(t *testing.T, program string, lane string, sessions bool, args ...string) serverTarget {
	t.Helper()
	if lane == laneStdio {
		argv := append([]string{program}, args...)
		if program == bin.everything {
			argv = append(argv, "-transport", "stdio")
		}
		return serverTarget{lane: lane, argv: argv, command: func() *exec.Cmd { return exec.Command(argv[0], argv[1:]...) }}
	}
	s := startHTTP(t, lane, sessions, args...)
	return serverTarget{lane: lane, sessions: sessions, url: s.URL, server: s}
}

// waitProcess waits for a stdio fixture whose input has closed and
// checks it exited with status 0 and logged no error.
func waitProcess(cmd *exec.Cmd, stderr *testfixture.Buffer) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("the stdio server did not exit within %s of its input closing", stopTimeout)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return err
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("the stdio server exited with status %d: %s", code, stderr)
	}
	if lines := errorLines(stderr.String()); len(lines) > 0 {
		return fmt.Errorf("the stdio server logged errors:\n%s", strings.Join(lines, "\n"))
	}
	return nil
}

// Canned answers of every client's input handlers.
const (
	samplingAnswer = "Bonjour"
	rootURI        = "file:///tmp/project"
)

// elicitAnswer accepts every elicitation: a URL one as such, a form with
// a value of each property's type.
func elicitAnswer(mode string, schema json.RawMessage) (string, map[string]any) {
	if mode == "url" {
		return "accept", nil
	}
	var s struct {
		Properties map[string]struct {
			Type   string `json:"type"`
			Format string `json:"format"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	content := map[string]any{}
	for name, p := range s.Properties {
		switch p.Type {
		case "boolean":
			content[name] = true
		case "integer", "number":
			content[name] = 1
		default:
			if p.Format == "email" {
				content[name] = "ada@example.com"
			} else {
				content[name] = "Ada"
			}
		}
	}
	return "accept", content
}
