package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// drainTimeout bounds the graceful shutdown of the HTTP modes.
const drainTimeout = 5 * time.Second

// serveListener serves rt on the library's native listener.
func serveListener(ctx context.Context, rt *dispatch.Runtime, cfg config, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	opts := []streamablehttp.ListenerOption{streamablehttp.WithAddr(cfg.addr)}
	if cfg.sup != nil {
		opts = append(opts, streamablehttp.WithSupervisor(cfg.sup))
	}
	if cfg.sessions {
		opts = append(opts, sessions(cfg.sessionPrefix))
	}
	srv, err := streamablehttp.Listen(rt, opts...)
	if err != nil {
		return err
	}
	if err := announce(stdout, srv.URL()); err != nil {
		_ = srv.Close()
		return err
	}
	waitForEnd(ctx, stdin, srv.Done())
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	return srv.Shutdown(sctx)
}

// serveHandler mounts the library's http.Handler in a plain net/http
// server, as an application would.
func serveHandler(ctx context.Context, rt *dispatch.Runtime, cfg config, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	var opts []streamablehttp.HandlerOption
	if cfg.sup != nil {
		opts = append(opts, streamablehttp.WithSupervisor(cfg.sup))
	}
	if cfg.sessions {
		opts = append(opts, sessions(cfg.sessionPrefix))
	}
	h, err := streamablehttp.NewHandler(rt, opts...)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		_ = h.Close()
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if err := announce(stdout, "http://"+ln.Addr().String()+"/mcp"); err != nil {
		_ = srv.Close()
		_ = h.Close()
		return err
	}
	stopped := make(chan struct{})
	go func() {
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("HTTP server stopped", "error", err)
		}
		close(stopped)
	}()
	waitForEnd(ctx, stdin, stopped)
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	herr := h.Shutdown(sctx) // open streams complete, then the server drains
	serr := srv.Shutdown(sctx)
	<-stopped
	return errors.Join(herr, serr)
}

// sessions turns on initialize-era sessions (Mcp-Session-Id), for
// -sessions, their ids beginning with prefix.
func sessions(prefix string) streamablehttp.Option {
	return streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: prefix})
}

// announce prints the ready line the conformance runner waits for.
func announce(stdout io.Writer, url string) error {
	line, err := json.Marshal(map[string]any{"conformanceReady": true, "url": url})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", line)
	return err
}

// waitForEnd returns when stdin closes, ctx ends, or the server stops.
func waitForEnd(ctx context.Context, stdin io.Reader, stopped <-chan struct{}) {
	closed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(closed) }()
	select {
	case <-closed:
	case <-ctx.Done():
	case <-stopped:
	}
}
