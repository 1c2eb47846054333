package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/stdio"
)

// serveFunc serves rt on one transport until it ends.
type serveFunc func(ctx context.Context, rt *dispatch.Runtime, cfg config, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error

var transports = map[string]serveFunc{
	"stdio":   serveStdio,
	"http":    serveListener,
	"handler": serveHandler,
}

// serveStdio speaks MCP on stdin and stdout until stdin ends.
func serveStdio(ctx context.Context, rt *dispatch.Runtime, cfg config, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if cfg.sessions {
		logger.Warn("-sessions has no effect on stdio: the connection is the session")
	}
	opts := []stdio.Option{stdio.WithInput(stdin), stdio.WithOutput(stdout)}
	if cfg.sup != nil {
		opts = append(opts, stdio.WithSupervisor(cfg.sup))
	}
	return stdio.Serve(ctx, rt, opts...)
}
