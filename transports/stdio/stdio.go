// Package stdio serves MCP over newline-delimited JSON on a byte stream,
// standard input and output by default.
//
// Requests run concurrently through the executor, so a fast request
// overtakes a slow one; each response is one atomic write through the
// connection's writer actor; notifications/cancelled stops a request and no
// late response is written for it; at end of input the transport lets
// admitted requests finish, writes their responses, and returns.
package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
)

// Defaults, as in the seed documents.
const (
	DefaultWriteTimeout = 5 * time.Second
	DefaultMaxLineBytes = 2_000_000
	DefaultGracePeriod  = 5 * time.Second
)

type options struct {
	input          io.Reader
	output         io.Writer
	writeTimeout   time.Duration
	maxLineBytes   int
	requestTimeout time.Duration
	gracePeriod    time.Duration
	executor       *actors.Executor
	sup            *supervisor.Supervisor
	logger         *slog.Logger
}

// Option configures Serve.
type Option func(*options) error

// WithInput sets the input stream (default os.Stdin). It is never closed by
// the transport.
func WithInput(r io.Reader) Option {
	return func(o *options) error { o.input = r; return nil }
}

// WithOutput sets the output stream (default os.Stdout). It is never
// closed by the transport.
func WithOutput(w io.Writer) Option {
	return func(o *options) error { o.output = w; return nil }
}

// WithWriteTimeout bounds each write (default 5 s). A write that blocks
// past it, or fails, ends the connection.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("stdio: write timeout must be positive")
		}
		o.writeTimeout = d
		return nil
	}
}

// WithMaxLineBytes bounds one inbound message, counting its newline
// (default 2,000,000). A longer line is answered with -32600 and no id
// without being decoded.
func WithMaxLineBytes(n int) Option {
	return func(o *options) error {
		if n < 2 {
			return errors.New("stdio: max line bytes must be at least 2")
		}
		o.maxLineBytes = n
		return nil
	}
}

// WithRequestTimeout sets each request's deadline (queue wait plus
// execution), overriding the executor's default of 30 s.
func WithRequestTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("stdio: request timeout must be positive")
		}
		o.requestTimeout = d
		return nil
	}
}

// WithGracePeriod bounds how long Serve waits, once its context is
// cancelled, for handlers that ignore cancellation (default 5 s).
func WithGracePeriod(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("stdio: grace period must be positive")
		}
		o.gracePeriod = d
		return nil
	}
}

// WithExecutor runs requests on a shared executor instead of the
// supervisor's.
func WithExecutor(e *actors.Executor) Option {
	return func(o *options) error { o.executor = e; return nil }
}

// WithSupervisor runs the connection under an existing supervision tree,
// which Serve does not close.
func WithSupervisor(s *supervisor.Supervisor) Option {
	return func(o *options) error { o.sup = s; return nil }
}

// WithLogger sets the logger of the private supervision tree Serve creates
// when none is given. Default: the Runtime's logger.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { o.logger = l; return nil }
}

// Serve runs the stdio transport until end of input and until admitted
// requests finish, then returns nil. Cancelling ctx ends the connection at
// once: running handlers are cancelled and Serve returns ctx's error within
// the grace period, even if a handler ignores cancellation. A failed or
// timed-out write ends the connection with an error wrapping
// actors.ErrWriteTimeout or the write's error.
func Serve(ctx context.Context, rt *dispatch.Runtime, opts ...Option) error {
	o := options{
		input:        os.Stdin,
		output:       os.Stdout,
		writeTimeout: DefaultWriteTimeout,
		maxLineBytes: DefaultMaxLineBytes,
		gracePeriod:  DefaultGracePeriod,
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return err
		}
	}
	if rt == nil {
		return errors.New("stdio: nil Runtime")
	}
	sup := o.sup
	if sup == nil {
		logger := o.logger
		if logger == nil {
			logger = rt.Logger()
		}
		var err error
		if sup, err = supervisor.New(supervisor.WithLogger(logger), supervisor.WithExecutor(o.executor)); err != nil {
			return err
		}
		defer func() {
			gctx, cancel := context.WithTimeout(context.Background(), o.gracePeriod)
			defer cancel()
			if err := sup.Close(gctx); err != nil {
				logger.Warn("snodo: stdio shutdown", "error", err)
			}
		}()
	}
	exec := o.executor
	if exec == nil {
		exec = sup.Executor()
	}
	conn, err := sup.System().StartConn(actors.ConnConfig{
		Prefix:         "stdio",
		Runtime:        rt,
		Executor:       exec,
		Input:          newLineReader(o.input, o.maxLineBytes),
		Output:         o.output,
		WriteTimeout:   o.writeTimeout,
		RequestTimeout: o.requestTimeout,
		Transport:      dispatch.TransportStdio,
	})
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Stop(ctx.Err())
		<-conn.Done()
	}
	if err := conn.Err(); err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}
