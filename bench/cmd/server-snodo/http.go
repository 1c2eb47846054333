package main

import (
	"context"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// serveHTTP serves rt on snodo-go's native Streamable HTTP listener with
// its defaults (application/json replies, no sessions), under sup, until
// ctx ends; then it drains. maxConns, when not 0, replaces the listener's
// connection cap (the HTTP storm and listen scenarios hold one connection
// per call or stream).
func serveHTTP(ctx context.Context, rt *dispatch.Runtime, sup *supervisor.Supervisor, addr string, maxConns int) error {
	s, err := streamablehttp.Listen(rt, streamablehttp.WithAddr(addr), streamablehttp.WithSupervisor(sup),
		streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxConnections: maxConns}))
	if err != nil {
		return err
	}
	benchtool.AnnounceURL(s.URL())
	select {
	case <-ctx.Done():
		return s.Shutdown(context.Background())
	case <-s.Done():
		return s.Close()
	}
}
