package stdio_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestCallAndEOFDrain(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g))
	resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "héllo"}})
	if resp.Error != nil || !strings.Contains(string(resp.Raw), `h\u00e9llo`) {
		t.Fatalf("echo: %s", resp.Raw)
	}
	// A slow request is in flight when input ends: it must still be answered.
	srv.Send(t, testkit.Request(10, "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	srv.CloseInput()
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
	if testkit.Find(tree, "writer") == nil {
		t.Fatalf("no writer in tree")
	}
	close(g.release)
	if err := srv.Wait(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	frames := srv.Client.WaitClosed(t)
	last := frames[len(frames)-1]
	if string(last.ID) != "10" || !strings.Contains(string(last.Raw), "released") {
		t.Fatalf("drained response: %s", last.Raw)
	}
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return n.Count("connection") == 0 })
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g))
	srv.Send(t, testkit.Request("c1", "tools/call", map[string]any{"name": "stubborn"}))
	mustWait(t, g.entered)
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "c1"}))
	testkit.WaitNoRequests(t, srv.Sup)
	close(g.release) // the handler returns a result after the cancel
	resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "after"}})
	if resp.Error != nil {
		t.Fatal(string(resp.Raw))
	}
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	for _, f := range srv.Client.WaitClosed(t) {
		if string(f.ID) == `"c1"` {
			t.Fatalf("late response for a cancelled request: %s", f.Raw)
		}
	}
}
