package main

import (
	"context"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// serveHTTP serves rt on snodo-go's native Streamable HTTP listener with
// its defaults (application/json replies, no sessions), on exec, until ctx
// ends; then it drains.
func serveHTTP(ctx context.Context, rt *dispatch.Runtime, exec *actors.Executor, addr string) error {
	s, err := streamablehttp.Listen(rt, streamablehttp.WithAddr(addr), streamablehttp.WithExecutor(exec), streamablehttp.WithLogger(rt.Logger()))
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
