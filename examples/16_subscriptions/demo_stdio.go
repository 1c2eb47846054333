package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"
)

// stdioDemo runs the server as a child process and listens over its
// standard output.
func stdioDemo(say func(string, ...any), _ *slog.Logger) (failures []string) {
	fail := func(format string, args ...any) { failures = append(failures, "stdio: "+fmt.Sprintf(format, args...)) }
	self, err := os.Executable()
	if err != nil {
		return []string{err.Error()}
	}
	cmd := exec.Command(self, "-serve")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return []string{err.Error()}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return []string{err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return []string{err.Error()}
	}
	ch, badLines := make(chan msg, 64), make(chan []string, 1)
	go readLines(stdout, ch, badLines)
	defer func() {
		_ = cmd.Process.Kill()
		for range ch { // let the reader finish
		}
		for _, b := range <-badLines {
			fail("%s", b)
		}
	}()
	in := &inbox{ch: ch}
	send := func(b []byte) { _, _ = stdin.Write(append(b, '\n')) }

	say("stdio 1. subscriptions/listen (id \"watch\") for tool-list changes and %s.", notesURI)
	send(listenRequest("watch"))
	ack, i, err := in.await("acknowledgement", -1, isMethod("notifications/subscriptions/acknowledged", `"watch"`))
	switch {
	case err != nil:
		fail("%v", err)
		return failures
	case i != 0:
		fail("the acknowledgement was not the first message: %s", in.seen[0].raw)
	}
	say("   %s", ack.raw)

	say("stdio 2. tools/call add_tool \"greet\": the stream gets tools/list_changed.")
	send(callRequest(1, "add_tool", map[string]any{"name": "greet"}))
	if ev, _, err := in.await("tools/list_changed", i, isMethod("notifications/tools/list_changed", `"watch"`)); err != nil {
		fail("%v", err)
	} else {
		say("   %s", ev.raw)
	}
	if _, _, err := in.await("add_tool's response", -1, isResponse("1")); err != nil {
		fail("%v", err)
	}

	say("stdio 3. tools/list shows the new tool, and it answers.")
	send(request(2, "tools/list", nil))
	if r, _, err := in.await("tools/list", -1, isResponse("2")); err != nil || !strings.Contains(string(r.Result), `"name":"greet"`) {
		fail("tools/list after add_tool: %v %s", err, r.raw)
	}
	send(callRequest(3, "greet", nil))
	if r, _, err := in.await("greet", -1, isResponse("3")); err != nil || !strings.Contains(string(r.Result), "hello from greet") {
		fail("calling the new tool: %v %s", err, r.raw)
	} else {
		say("   %s", r.raw)
	}

	say("stdio 4. tools/call touch: the stream gets resources/updated for %s.", notesURI)
	send(callRequest(4, "touch", nil))
	if ev, _, err := in.await("resources/updated", -1, isMethod("notifications/resources/updated", `"watch"`)); err != nil || ev.Params.URI != notesURI {
		fail("resources/updated: %v %s", err, ev.raw)
	} else {
		say("   %s", ev.raw)
	}

	say("stdio 5. End of input: the stream ends with its result, then notifications/cancelled naming it.")
	_ = stdin.Close()
	final, fi, err := in.await("final result", -1, isResponse(`"watch"`))
	if err != nil || final.Result == nil || !strings.Contains(string(final.Result), `"io.modelcontextprotocol/subscriptionId":"watch"`) {
		fail("final result: %v %s", err, final.raw)
	} else {
		say("   %s", final.raw)
	}
	if c, _, err := in.await("notifications/cancelled", fi, func(m msg) bool {
		return m.Method == "notifications/cancelled" && string(m.Params.RequestID) == `"watch"`
	}); err != nil {
		fail("%v", err)
	} else {
		say("   %s", c.raw)
	}
	for range ch { // the server closes its output as it exits
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			fail("the server exited with %v", err)
		} else {
			say("   the server exited with status 0.")
		}
	case <-time.After(wait):
		fail("the server did not exit after end of input")
	}
	for _, m := range in.seen {
		if m.Method != "" && m.Method != "notifications/cancelled" && m.stream() != `"watch"` {
			fail("a notification not tagged with the stream's id: %s", m.raw)
		}
	}
	return failures
}

// readLines parses each line of r into ch and, once r ends, sends the
// lines that were not ASCII JSON-RPC messages to bad.
func readLines(r io.Reader, ch chan<- msg, bad chan<- []string) {
	var problems []string
	defer func() {
		close(ch)
		bad <- problems
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		m, err := parse(sc.Bytes())
		if err != nil {
			problems = append(problems, fmt.Sprintf("not JSON: %q", sc.Text()))
			continue
		}
		if strings.IndexFunc(m.raw, func(r rune) bool { return r > 0x7f }) >= 0 {
			problems = append(problems, fmt.Sprintf("non-ASCII output: %q", m.raw))
		}
		ch <- m
	}
}
