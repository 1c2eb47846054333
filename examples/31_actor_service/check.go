package main

// The -check scenario: a client over in-memory pipes talks to the
// service while the supervision tree is read from outside the actors.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// scenario: two rooms answer from their own state; a listen stream sees
// a room's resource change; a wait call is in flight in the tree, under
// the application node, and its cancellation leaves nothing behind and
// writes nothing; a second wait is answered by the next message.
func scenario(rt *dispatch.Runtime) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sup, err := startService(rt, supervisor.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		return err
	}
	defer sup.Close(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn, err := stdio.Start(ctx, rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
	if err != nil {
		return err
	}
	client := testkit.NewClient(outR, inW)
	defer func() {
		_ = inW.Close()
		_ = conn.Wait()
		_ = outW.Close()
	}()
	send := func(id any, method string, params map[string]any) error {
		return client.Send(testkit.Request(id, method, params))
	}
	response := func(id string) (*testkit.Frame, error) {
		return client.Await(ctx, func(f *testkit.Frame) bool { return f.Method == "" && string(f.ID) == id })
	}
	say := func(id, room, text, want string) error {
		if err := send(id, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{"room": room, "text": text}}); err != nil {
			return err
		}
		f, err := response(`"` + id + `"`)
		if err != nil {
			return err
		}
		if got := frameText(f); got != want {
			return fmt.Errorf("say %q in %s: %q, want %q", text, room, got, want)
		}
		return nil
	}

	// A listen stream for the lobby's resource.
	if err := send("listen", dispatch.MethodListen, map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{roomURI("lobby")}}}); err != nil {
		return err
	}
	if _, err := client.Await(ctx, func(f *testkit.Frame) bool { return f.Method == "notifications/subscriptions/acknowledged" }); err != nil {
		return err
	}
	// Each room answers from its own state.
	for _, s := range [][4]string{{"s1", "lobby", "hello", "lobby#1: hello"}, {"s2", "kitchen", "soup", "kitchen#1: soup"}, {"s3", "lobby", "hi", "lobby#2: hi"}} {
		if err := say(s[0], s[1], s[2], s[3]); err != nil {
			return err
		}
	}
	if _, err := client.Await(ctx, func(f *testkit.Frame) bool {
		return f.Method == "notifications/resources/updated" && strings.Contains(string(f.Params), roomURI("lobby"))
	}); err != nil {
		return fmt.Errorf("the listen stream never saw the lobby change: %w", err)
	}

	// A wait call is in flight: a call node under the application node,
	// and the lobby says it holds one.
	if err := send("w1", "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"room": "lobby"}}); err != nil {
		return err
	}
	tree, err := waitTree(ctx, sup, func(n *supervisor.Node) bool {
		return roomAttrs(n, "lobby")["waiting"] == "1" && n.Count("call") == 1
	})
	if err != nil {
		return err
	}
	fmt.Println("tree while a wait call is in flight:")
	fmt.Print(sup.Tree())
	app := testkit.Find(tree, "application")
	call := testkit.Find(app, "call")
	if call == nil || call.Attrs["name"] != "wait" || call.Attrs["id"] != `"w1"` || !strings.HasSuffix(call.Attrs["target"], "/app/rooms") {
		return fmt.Errorf("the wait call in the tree: %+v", call)
	}
	if roomAttrs(tree, "kitchen")["messages"] != "1" || roomAttrs(tree, "lobby")["messages"] != "2" {
		return fmt.Errorf("rooms in the tree:\n%s", tree)
	}

	// Cancelled: the room lets go of it, no call is left, nothing is
	// written for it.
	if err := client.Send(testkit.Notification("notifications/cancelled", map[string]any{"requestId": "w1"})); err != nil {
		return err
	}
	if _, err := waitTree(ctx, sup, func(n *supervisor.Node) bool {
		return n.Count("call") == 0 && roomAttrs(n, "lobby")["waiting"] == "0"
	}); err != nil {
		return fmt.Errorf("after the cancellation: %w", err)
	}

	// The next wait is answered by the next message.
	if err := send("w2", "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"room": "lobby"}}); err != nil {
		return err
	}
	if _, err := waitTree(ctx, sup, func(n *supervisor.Node) bool { return roomAttrs(n, "lobby")["waiting"] == "1" }); err != nil {
		return err
	}
	if err := say("s4", "lobby", "again", "lobby#3: again"); err != nil {
		return err
	}
	f, err := response(`"w2"`)
	if err != nil {
		return err
	}
	if got := frameText(f); got != "again" {
		return fmt.Errorf("the wait was answered with %q", got)
	}
	if err := send("r", "resources/read", map[string]any{"uri": roomURI("lobby")}); err != nil {
		return err
	}
	if f, err = response(`"r"`); err != nil {
		return err
	}
	if !strings.Contains(string(f.Result), `"text":"hello\nhi\nagain"`) {
		return fmt.Errorf("the lobby's transcript: %s", f.Raw)
	}
	for _, f := range client.Frames() {
		if string(f.ID) == `"w1"` {
			return fmt.Errorf("a response was written for the cancelled wait: %s", f.Raw)
		}
	}
	if problems := client.Problems(); len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	fmt.Println("rooms answer from their own state, the listen stream saw the change, the cancelled wait left nothing: ok")
	return nil
}

// roomAttrs returns the attributes of the room called name in the tree.
func roomAttrs(n *supervisor.Node, name string) map[string]string {
	var attrs map[string]string
	n.Walk(func(x *supervisor.Node) {
		if x.Kind == "actor" && x.Attrs["room"] == name {
			attrs = x.Attrs
		}
	})
	return attrs
}

// frameText is the text of a tools/call response's first content block.
func frameText(f *testkit.Frame) string {
	if f.Error != nil {
		return fmt.Sprintf("error %d %s", f.Error.Code, f.Error.Message)
	}
	_, rest, _ := strings.Cut(string(f.Result), `"text":"`)
	text, _, _ := strings.Cut(rest, `"`)
	return text
}

// waitTree reads the tree until cond holds or ctx ends.
func waitTree(ctx context.Context, sup *supervisor.Supervisor, cond func(*supervisor.Node) bool) (*supervisor.Node, error) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if tree := sup.Tree(); cond(tree) {
			return tree, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil, fmt.Errorf("the tree never reached the expected state:\n%s", sup.Tree())
		}
	}
}
