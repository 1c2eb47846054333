// Command stdiobridge serves a stdio MCP server over HTTP, for the
// conformance suite, which targets URLs only:
//
//	stdiobridge [-sessions] [-addr 127.0.0.1:0] -- COMMAND [ARG...]
//
// It listens on 127.0.0.1, prints one line on standard output once it
// accepts requests,
//
//	{"conformanceReady":true,"url":"http://127.0.0.1:PORT/mcp"}
//
// and relays each POST to a stdio server it runs as COMMAND: the request
// goes to the server's standard input with an id of the bridge's own (so
// ids chosen by different clients cannot collide; a progress token is
// replaced the same way), and the response comes back with the client's
// id, as application/json or, when the server writes notifications first
// (progress, log messages), as an event stream. A client that goes away
// has its request cancelled (notifications/cancelled), and anything the
// server writes for it later is dropped.
//
// Without -sessions (2026-07-28) requests are stateless, and all of them
// share one long-lived stdio server, as the requests of a stdio client
// do: progress goes to the stream of the request whose token it carries,
// listen-stream notifications to the subscriptions/listen stream their
// subscription id names (with the client's id put back), and log
// messages, which name no request on stdio, to a request in flight whose
// _meta logLevel admits them (never to one without). A notification or a
// JSON-RPC response a client posts gets 202 and goes no further, as on
// the library's own stateless transport. With -sessions (the initialize
// era) each initialize starts a stdio server for the session it opens;
// see bridge and child for the routing.
//
// Without -sessions every rule of HTTP is the library's own: each request
// goes first through the Streamable HTTP transport's Handler.Prepare (path,
// method, Origin, media types, length, body size, envelope, and the
// 2026-07-28 header rules of dispatch admission over a copy of the stdio
// server's tools), and the bridge answers the refusals a stdio server,
// which never sees HTTP, could not make (see front). With -sessions the
// bridge applies a few rules of its own (POST, GET and DELETE only, Origin
// against loopback, media types, body size), because the library's HTTP
// transport has no initialize-era sessions yet.
//
// It exits when its standard input closes (or on SIGINT/SIGTERM), closing
// every stdio server's input and killing any that has not exited within
// five seconds.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// shutdownTimeout bounds the HTTP server's drain at exit.
const shutdownTimeout = 5 * time.Second

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stdiobridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sessions := fs.Bool("sessions", false, "initialize-era sessions (Mcp-Session-Id), one stdio server per session")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	verbose := fs.Bool("v", false, "log debug messages")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: stdiobridge [-sessions] [-addr 127.0.0.1:0] -- COMMAND [ARG...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !isLoopback(host) {
		fmt.Fprintf(stderr, "stdiobridge: -addr %q is not a loopback address\n", *addr)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "stdiobridge:", err)
		return 1
	}
	const path = "/mcp"
	b := newBridge(argv, *sessions, path, logger)
	if !*sessions {
		b.loadFront()
	}
	srv := &http.Server{Handler: b, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	ready, _ := json.Marshal(map[string]any{"conformanceReady": true, "url": "http://" + ln.Addr().String() + path})
	if _, err := fmt.Fprintf(stdout, "%s\n", ready); err != nil {
		logger.Error("writing the ready line", "error", err)
	}

	inputClosed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(inputClosed) }()
	status := 0
	select {
	case <-inputClosed:
	case <-ctx.Done():
	case err := <-served:
		logger.Error("HTTP server stopped", "error", err)
		status = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	b.close(sctx) // ends sessions' GET streams and every request in flight
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("HTTP server drain", "error", err)
		_ = srv.Close()
	}
	return status
}
