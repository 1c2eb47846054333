// Command 29_tree_in_tests serves two tools over stdio; its test,
// main_test.go, is the part to copy: it drives the server through
// testkit and asserts on the live supervision tree (the request actor,
// its method, state and deadline, the connection and its writer) before
// and after a cancellation.
//
//	go test ./examples/29_tree_in_tests -v       # the test, with the tree in its log
//	go run ./examples/29_tree_in_tests -check    # the same scenario without the testing package
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

func main() { excheck.Main(newRuntime, scenario) }

// scenario is main_test.go's test written against the library alone.
func scenario(rt *dispatch.Runtime) error {
	sup, err := supervisor.New(rt, supervisor.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		return err
	}
	defer sup.Close(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn, err := stdio.Start(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
	if err != nil {
		return err
	}
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(frame []byte) error {
		_, err := inW.Write(append(frame, '\n'))
		return err
	}

	if err := send(testkit.Request(1, "tools/call", map[string]any{"name": "slow"})); err != nil {
		return err
	}
	tree, err := waitTree(sup, func(n *supervisor.Node) bool {
		r := testkit.Find(n, "request")
		return r != nil && r.Attrs["state"] == "running"
	})
	if err != nil {
		return err
	}
	req := testkit.Find(tree, "request")
	if req.Attrs["method"] != "tools/call" || req.Attrs["id"] != "1" || req.Attrs["deadline"] == "" {
		return fmt.Errorf("request node: %+v", req.Attrs)
	}
	fmt.Println("tree while the slow call runs:")
	fmt.Print(tree)

	if err := send(testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1})); err != nil {
		return err
	}
	if _, err := waitTree(sup, func(n *supervisor.Node) bool { return n.Count("request") == 0 }); err != nil {
		return err
	}
	if err := send(testkit.Request(2, "tools/call", map[string]any{"name": "fast"})); err != nil {
		return err
	}
	_ = inW.Close()
	if err := conn.Wait(); err != nil {
		return err
	}
	_ = outW.Close()
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	if len(got) != 1 || !strings.Contains(got[0], `"id":2`) || !strings.Contains(got[0], `"text":"fast"`) {
		return fmt.Errorf("output after the cancellation: %q (want only the fast call's response)", got)
	}
	if n := sup.Tree().Count("connection"); n != 0 {
		return errors.New("the connection is still in the tree after the end of input")
	}
	fmt.Println("running request visible with method, state and deadline; cancelled without a response; nothing left: ok")
	return nil
}

// waitTree polls the tree until cond holds (5 s at most).
func waitTree(sup *supervisor.Supervisor, cond func(*supervisor.Node) bool) (*supervisor.Node, error) {
	for range 500 {
		if tree := sup.Tree(); cond(tree) {
			return tree, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, errors.New("the tree never reached the expected state")
}
