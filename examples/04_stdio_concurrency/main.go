// Command 04_stdio_concurrency shows the stdio transport's concurrency
// against a real subprocess: a fast call overtakes a slow one,
// notifications/cancelled stops a call and no late response is ever
// written for it, and at end of input the server finishes what it admitted,
// writes the responses and exits cleanly.
//
//	go run ./examples/04_stdio_concurrency          # narrates what happens
//	go run ./examples/04_stdio_concurrency -check   # exits 1 if any of it fails
//	go run ./examples/04_stdio_concurrency -serve   # the server alone, on stdin/stdout
//
// Without -serve the program starts itself with -serve as a child process
// and talks to it over pipes, as an MCP client would.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/transports/stdio"
)

func main() {
	serve := flag.Bool("serve", false, "run the stdio server on standard input and output")
	check := flag.Bool("check", false, "print only failures, and exit 1 if overtaking, cancellation or the clean exit on EOF fails")
	writeTimeout := flag.Duration("write-timeout", 0, "server: bound on each write (0: the default, see stdio.Limits)")
	maxLine := flag.Int("max-line-bytes", 0, "server: longest accepted line, newline included (0: the default)")
	grace := flag.Duration("grace", 0, "server: how long shutdown waits for handlers (0: the default)")
	logLevel := flag.String("log-level", "warn", "server: debug, info, warn or error (logs go to standard error)")
	flag.Parse()

	if *serve {
		os.Exit(runServer(*logLevel,
			stdio.WithLimits(stdio.Limits{WriteTimeout: *writeTimeout, MaxLineBytes: *maxLine, GracePeriod: *grace})))
	}
	var out io.Writer = os.Stdout
	if *check {
		out = io.Discard
	}
	failures := demo(out)
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, "FAIL:", f)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
	if *check {
		fmt.Fprintln(os.Stderr, "ok: overtaking, cancellation without a late response, clean exit on EOF")
	}
}

// runServer serves until end of input and returns the exit status.
func runServer(level string, opts ...stdio.Option) int {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		fmt.Fprintln(os.Stderr, "bad -log-level:", err)
		return 2
	}
	// Logs go to standard error: standard output carries protocol only.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newServer(logger).serve(ctx, opts...); err != nil {
		logger.Error("stdio transport ended", "error", err)
		return 1
	}
	return 0
}

// demo drives a child server through the three behaviours and returns
// what failed.
func demo(out io.Writer) (failures []string) {
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	self, err := os.Executable()
	if err != nil {
		return []string{fmt.Sprintf("finding this program: %v", err)}
	}
	child, err := startChild(self, "-serve")
	if err != nil {
		return []string{err.Error()}
	}
	defer child.kill()
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }

	say("1. Overtaking: a slow call (id 1), then a fast one (id 2).")
	child.call(1, "slow", nil)
	child.call(2, "echo", map[string]any{"text": "I am fast"})
	first, err := child.next(10 * time.Second)
	switch {
	case err != nil:
		fail("overtaking: no response: %v", err)
	case first.id() != "2":
		fail("overtaking: the first response was %s, want the fast call's (2)", first.raw)
	default:
		say("   first response: %s", first.raw)
	}

	say("2. Cancellation: a slow call (id 3), then notifications/cancelled for it.")
	child.call(3, "slow", nil)
	child.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"no longer needed"}}`)
	saw := false
	for id, deadline := 4, time.Now().Add(10*time.Second); time.Now().Before(deadline); id++ {
		child.call(id, "cancellations", nil)
		r, err := child.awaitID(fmt.Sprint(id), 10*time.Second)
		if err != nil {
			fail("cancellation: asking for the count: %v", err)
			break
		}
		if strings.Contains(r.raw, `"text":"1"`) {
			saw = true
			say("   the handler saw its cancellation: %s", r.raw)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !saw {
		fail("cancellation: the slow call never saw its cancellation")
	}

	say("3. Releasing the first slow call (id 100); it answers after the fast one.")
	child.call(100, "release", nil)
	if r, err := child.awaitID("1", 10*time.Second); err != nil {
		fail("the released slow call never answered: %v", err)
	} else {
		say("   %s", r.raw)
	}

	say("4. End of input while a call (id 200, sleeping 200 ms) is in flight.")
	child.call(200, "sleep", map[string]any{"ms": 200})
	child.closeInput()
	if r, err := child.awaitID("200", 10*time.Second); err != nil {
		fail("EOF drain: the in-flight call was not answered: %v", err)
	} else {
		say("   answered after end of input: %s", r.raw)
	}
	code, err := child.wait(10 * time.Second)
	switch {
	case err != nil:
		fail("EOF: %v", err)
	case code != 0:
		fail("EOF: the server exited with status %d, want 0; its log:\n%s", code, child.stderr())
	default:
		say("   the server exited with status 0.")
	}
	for _, f := range child.all() {
		if f.id() == "3" {
			fail("cancellation: a late response was written for the cancelled call: %s", f.raw)
		}
		if f.bad != "" {
			fail("output: %s", f.bad)
		}
	}
	return failures
}
