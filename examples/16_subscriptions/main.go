// Command 16_subscriptions shows subscriptions/listen: a server whose tool
// list changes while a client listens, over stdio and over Streamable
// HTTP. The client opens a stream, calls add_tool, and the stream carries
// notifications/tools/list_changed tagged with the stream's id; tools/list
// then shows the new tool. On shutdown the stream ends with its final
// result (and, on stdio, notifications/cancelled naming it).
//
//	go run ./examples/16_subscriptions            # narrates what happens
//	go run ./examples/16_subscriptions -check     # exits 1 if any of it fails
//	go run ./examples/16_subscriptions -serve     # the server alone, on stdin/stdout
//
// The stdio part starts this program with -serve as a child process and
// talks to it over pipes; the HTTP part runs the native listener on an
// ephemeral 127.0.0.1 port.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/transports/stdio"
)

func main() {
	serve := flag.Bool("serve", false, "run the stdio server on standard input and output")
	check := flag.Bool("check", false, "print only failures, and exit 1 if any behaviour fails")
	flag.Parse()

	// Logs go to standard error: standard output carries protocol only.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *serve {
		os.Exit(runServer(logger))
	}
	var out io.Writer = os.Stdout
	if *check {
		out = io.Discard
	}
	failures := demo(out, logger)
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, "FAIL:", f)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
	if *check {
		fmt.Fprintln(os.Stderr, "ok: acknowledgement first, list_changed and resources/updated tagged with the stream id, final result on shutdown, over stdio and HTTP")
	}
}

// demo narrates the behaviours to out, over stdio (a child process of
// this program) and over HTTP, and returns what failed.
func demo(out io.Writer, logger *slog.Logger) []string {
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	return append(stdioDemo(say, logger), httpDemo(say, logger)...)
}

// runServer serves stdio until end of input and returns the exit status.
func runServer(logger *slog.Logger) int {
	s, err := newServer(logger)
	if err != nil {
		logger.Error("invalid server definition", "error", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := stdio.Serve(ctx, s.rt); err != nil {
		logger.Error("stdio transport ended", "error", err)
		return 1
	}
	return 0
}
