package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

var (
	fixtureOnce sync.Once
	fixtureBin  string
)

// fixture builds our conformance fixture (examples/everything) once.
func fixture(t *testing.T) string {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureBin = testkit.BuildBinary(t, "github.com/snodo-go/snodo/examples/everything")
	})
	if fixtureBin == "" {
		t.Fatal("the fixture did not build")
	}
	return fixtureBin
}

// fixtureHTTP starts the fixture on a 127.0.0.1 port in one of its HTTP
// modes and returns the URL it reports when ready.
func fixtureHTTP(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(fixture(t), "-transport", mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the fixture exits when its input closes
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("the fixture did not exit when its input closed")
		}
	})
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("the fixture did not report ready: %v", err)
	}
	var ready struct {
		Ready bool   `json:"conformanceReady"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal(line, &ready); err != nil || !ready.Ready {
		t.Fatalf("ready line %q: %v", line, err)
	}
	return ready.URL
}

// TestOurFixture makes the conformance calls against our own fixture on
// each of its lanes, with every frame it sends checked against the schema.
func TestOurFixture(t *testing.T) {
	fixture(t) // built once, in this test's temporary directory
	lanes := map[string]func(t *testing.T) client.Transport{
		"stdio":   func(t *testing.T) client.Transport { return client.Command(fixture(t), "-transport", "stdio") },
		"http":    func(t *testing.T) client.Transport { return client.HTTP(fixtureHTTP(t, "http")) },
		"handler": func(t *testing.T) client.Transport { return client.HTTP(fixtureHTTP(t, "handler")) },
	}
	for name, lane := range lanes {
		t.Run(name, func(t *testing.T) {
			c := testkit.Connect(t, lane(t), handlers()...)
			checkEverything(t, c, mcp.Version20260728, c.Server().Implementation.Name, ourInputTexts)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			sub, err := c.Listen(ctx, client.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}})
			if err != nil {
				// Until our server serves subscriptions.
				if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}) {
					t.Fatalf("listen: %v", err)
				}
				return
			}
			sub.Close()
			checkResourceSubscription(t, c)
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
