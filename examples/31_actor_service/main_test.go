package main

import (
	"context"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// Every test binary ends with a goroutine-leak check.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// The rooms are actors in the supervision tree, beside the connection;
// a call waiting in a room is a call node under the application node
// and a request under the connection; cancelling it leaves neither, and
// the room lets go of it.
func TestRoomsAndCallsInTheTree(t *testing.T) {
	rt, err := newRuntime()
	if err != nil {
		t.Fatal(err)
	}
	sup, err := startService(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	srv := testkit.StartStdioWith(t, sup, rt)
	for _, room := range []string{"lobby", "kitchen"} {
		f := srv.Client.Call(t, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{"room": room, "text": "hello"}})
		if f.Error != nil || !strings.Contains(string(f.Result), room+"#1: hello") {
			t.Fatalf("say in %s: %s", room, f.Raw)
		}
	}

	srv.Send(t, testkit.Request("w", "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"room": "lobby"}}))
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return roomAttrs(n, "lobby")["waiting"] == "1" && n.Count("call") == 1 && n.Count("request") == 1
	})
	t.Logf("tree while the wait is in flight:\n%s", tree)
	app := testkit.Find(tree, "application")
	if app.Attrs["actors"] != "1" || app.Attrs["calls"] != "1" {
		t.Fatalf("application node: %+v", app.Attrs)
	}
	if call := testkit.Find(app, "call"); call.Attrs["name"] != "wait" || call.Attrs["id"] != `"w"` || call.Attrs["state"] != "waiting" {
		t.Fatalf("call node: %+v", call.Attrs)
	}
	if dir := testkit.Find(app, "actor"); dir.ID != "snodo/app/rooms" || dir.Attrs["rooms"] != "2" || dir.Count("actor") != 3 {
		t.Fatalf("the directory and its rooms: %+v", dir)
	}
	if req := testkit.Find(tree, "request"); req == nil || req.Attrs["id"] != `"w"` {
		t.Fatalf("the wait's request under the connection: %+v", req)
	}

	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "w"}))
	tree = testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("call") == 0 && n.Count("request") == 0 && roomAttrs(n, "lobby")["waiting"] == "0"
	})
	if roomAttrs(tree, "lobby")["messages"] != "1" || roomAttrs(tree, "kitchen")["messages"] != "1" {
		t.Fatalf("the rooms after the cancellation:\n%s", tree)
	}
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	for _, f := range srv.Client.Frames() {
		if string(f.ID) == `"w"` {
			t.Fatalf("a response was written for the cancelled wait: %s", f.Raw)
		}
	}
}

// TestCheck runs the -check mode in process.
func TestCheck(t *testing.T) {
	if err := excheck.Check(newRuntime, scenario); err != nil {
		t.Fatal(err)
	}
}
