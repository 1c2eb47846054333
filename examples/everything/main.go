// Command everything serves the conformance fixture (package
// examples/everything/fixture): an MCP server exposing every tool,
// resource, template and prompt the official conformance suite
// exercises, plus echo and sleep for load tests.
//
//	everything -transport stdio [-subscriptions=false] [-page-size N]  # MCP on standard input and output
//	everything -transport http [-addr 127.0.0.1:0] [-sessions [-session-prefix P]]
//	everything -transport handler [-addr 127.0.0.1:0] [-sessions]
//	everything -transport http -proxy
//	everything ... -state-key HEX
//
// In the HTTP modes (http: the native listener; handler: the http.Handler
// mounted in a plain net/http server) it prints one line on standard output
// once it accepts requests,
//
//	{"conformanceReady":true,"url":"http://127.0.0.1:PORT/mcp"}
//
// and it exits cleanly when its standard input closes, so a parent that
// dies takes it along. -sessions asks for initialize-era HTTP sessions;
// -session-prefix begins their ids (streamablehttp.SessionConfig.IDPrefix),
// for one process of several behind a balancer that relays sessions to
// their owner (backplane.Sessions).
// While it serves, test://watched-resource changes every 3 seconds.
// -subscriptions=false leaves out the subscription hub (no listChanged,
// no subscriptions/listen, no resources/subscribe), for a server that is
// one of several processes answering stateless requests in turn, where a
// change made through one request cannot reach a stream another process
// holds (backplane/cmd/clusterfixture instead runs several instances of
// package fixture in one process, sharing events over NATS). -page-size sets the number of items per page of every list (the
// default is dispatch.Limits' PageSize), so that a client's pagination
// can be tried on short lists. -proxy serves the fixture through a
// proxy Runtime (package proxy, reaching the fixture in process), so that
// what a proxied server offers can be checked. -state-key sets the key
// (hexadecimal, at least 32 bytes) that seals multi round-trip
// requestState (dispatch.WithRequestStateKeys), so that instances given
// the same key accept each other's states; without it each process draws a random key. Logs go to standard error.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/everything/fixture"
	"github.com/snodo-go/snodo/supervisor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// config is what the flags say.
type config struct {
	transport     string
	addr          string
	sessions      bool
	sessionPrefix string
	subscriptions bool
	pageSize      int
	proxy         bool
	stateKey      string                 // hexadecimal requestState key, or empty
	sup           *supervisor.Supervisor // the tree every transport serves in
}

// run parses args and serves until the transport ends; it returns the
// process's exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.transport, "transport", "stdio", "stdio, http (native listener) or handler (http.Handler in a net/http server)")
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "address the HTTP modes listen on")
	fs.BoolVar(&cfg.sessions, "sessions", false, "serve initialize-era HTTP sessions (Mcp-Session-Id)")
	fs.StringVar(&cfg.sessionPrefix, "session-prefix", "", "prefix of the session ids issued with -sessions")
	fs.BoolVar(&cfg.subscriptions, "subscriptions", true, "serve list changes and resource subscriptions from a hub")
	fs.IntVar(&cfg.pageSize, "page-size", 0, "items per page of list results (0: the library's default)")
	fs.BoolVar(&cfg.proxy, "proxy", false, "serve the fixture through a proxy Runtime")
	fs.StringVar(&cfg.stateKey, "state-key", "", "hexadecimal key sealing multi round-trip requestState, shared by instances (default: a random key)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var extra []dispatch.Option
	if cfg.pageSize > 0 {
		extra = append(extra, dispatch.WithLimits(dispatch.Limits{PageSize: cfg.pageSize}))
	}
	if cfg.stateKey != "" {
		key, err := hex.DecodeString(cfg.stateKey)
		if err != nil {
			fmt.Fprintf(stderr, "everything: -state-key: %v\n", err)
			return 2
		}
		extra = append(extra, dispatch.WithRequestStateKeys(key))
	}
	srv, err := fixture.New(fixture.Config{Logger: logger, NoSubscriptions: !cfg.subscriptions, Options: extra})
	if err != nil {
		logger.Error("invalid server definition", "error", err)
		return 1
	}
	rt := srv.Runtime
	if cfg.sup, err = supervisor.New(rt); err != nil {
		logger.Error("starting the supervision tree", "error", err)
		return 1
	}
	if err := srv.Start(ctx, cfg.sup); err != nil {
		logger.Error("starting the task runner", "error", err)
		return 1
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		_ = srv.Close(cctx)
		_ = cfg.sup.Close(cctx)
	}()
	wctx, stopWatched := context.WithCancel(ctx)
	updated := make(chan struct{})
	go func() {
		defer close(updated)
		srv.WatchResource(wctx, fixture.WatchedInterval)
	}()
	defer func() { stopWatched(); <-updated }()
	if cfg.proxy {
		front, closeBackend, err := proxied(ctx, rt, logger)
		if err != nil {
			logger.Error("proxying the fixture", "error", err)
			return 1
		}
		defer func() { _ = closeBackend() }()
		rt = front
	}
	serve, ok := transports[cfg.transport]
	if !ok {
		fmt.Fprintf(stderr, "everything: unknown transport %q (stdio, http, handler)\n", cfg.transport)
		return 2
	}
	if err := serve(ctx, rt, cfg, stdin, stdout, logger); err != nil {
		logger.Error("transport ended", "transport", cfg.transport, "error", err)
		return 1
	}
	return 0
}
