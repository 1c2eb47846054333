package main

// This file is meant to be copied: it shows how a test reads the
// supervision tree of a server it drives, to assert on what is running
// (not only on what comes out), and to see exactly what was left behind
// when something leaks.

import (
	"testing"
	"time"

	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// Every test binary ends with a goroutine-leak check.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestCancelledCallLeavesNothingBehind(t *testing.T) {
	rt, err := newRuntime()
	if err != nil {
		t.Fatal(err)
	}
	// A stdio server over in-memory pipes, under its own supervisor.
	srv := testkit.StartStdio(t, rt)

	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "slow"}))

	// The call is a request actor under the connection: wait for it,
	// then read what the tree says about it.
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool {
		r := testkit.Find(n, "request")
		return r != nil && r.Attrs["state"] == "running"
	})
	req := testkit.Find(tree, "request")
	if req.Attrs["method"] != "tools/call" || req.Attrs["id"] != "1" {
		t.Fatalf("request node: %+v", req.Attrs)
	}
	deadline, err := time.Parse(time.RFC3339Nano, req.Attrs["deadline"])
	if err != nil || !deadline.After(time.Now()) {
		t.Fatalf("deadline %q: %v", req.Attrs["deadline"], err)
	}
	if conn := testkit.Find(tree, "connection"); conn.Attrs["transport"] != "stdio" || conn.Count("writer") != 1 {
		t.Fatalf("connection node: %+v", conn)
	}
	// When an assertion fails, the text form is the quickest to read.
	t.Logf("tree while the call runs:\n%s", tree)

	// Cancel it: the request actor goes away, the handler's context
	// ends, and no response is ever written for id 1.
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}))
	// The handler returns soon after (its slot frees when it does): the
	// executor node shows it.
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool {
		return n.Count("request") == 0 && testkit.Find(n, "executor").Attrs["running"] == "0"
	})

	// The connection still serves.
	srv.Send(t, testkit.Request("after", "tools/call", map[string]any{"name": "fast"}))
	if f := srv.Client.AwaitResponse(t, `"after"`); f.Error != nil {
		t.Fatalf("fast call: %s", f.Raw)
	}
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	for _, f := range srv.Client.Frames() {
		if string(f.ID) == "1" {
			t.Fatalf("a response was written for the cancelled call: %s", f.Raw)
		}
	}
	// After the end of input the connection is gone from the tree.
	if n := srv.Sup.Tree().Count("connection"); n != 0 {
		t.Fatalf("%d connections left in the tree", n)
	}
}

// TestCheck runs the -check mode (the same scenario through the library
// alone) in process.
func TestCheck(t *testing.T) {
	if err := excheck.Check(newRuntime, scenario); err != nil {
		t.Fatal(err)
	}
}
