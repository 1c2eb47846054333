package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
)

// Defaults, used where the corresponding option is not given.
const (
	DefaultWriteTimeout     = 5 * time.Second
	DefaultMaxLineBytes     = 2_000_000
	DefaultGracePeriod      = 5 * time.Second
	DefaultMaxSubscriptions = 32
)

type options struct {
	input               io.Reader
	output              io.Writer
	writeTimeout        time.Duration
	maxLineBytes        int
	requestTimeout      time.Duration
	gracePeriod         time.Duration
	maxSubscriptions    int
	notificationMethods []string
	name                string
	sup                 *supervisor.Supervisor
}

func defaultOptions() options {
	return options{
		input:            os.Stdin,
		output:           os.Stdout,
		writeTimeout:     DefaultWriteTimeout,
		maxLineBytes:     DefaultMaxLineBytes,
		gracePeriod:      DefaultGracePeriod,
		maxSubscriptions: DefaultMaxSubscriptions,
	}
}

// Option configures Serve and Start. An invalid value makes them fail
// before anything starts.
type Option func(*options) error

// WithInput sets the input stream (default os.Stdin). It is never closed by
// the transport.
func WithInput(r io.Reader) Option {
	return func(o *options) error {
		if r == nil {
			return errors.New("stdio: nil input")
		}
		o.input = r
		return nil
	}
}

// WithOutput sets the output stream (default os.Stdout). It is never
// closed by the transport.
func WithOutput(w io.Writer) Option {
	return func(o *options) error {
		if w == nil {
			return errors.New("stdio: nil output")
		}
		o.output = w
		return nil
	}
}

// WithWriteTimeout bounds each write (default 5 s). A write that blocks
// past it, or fails, ends the connection: bytes may already have reached
// the device, so nothing is retried and nothing more is written.
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
// (an id that cannot be read is left out, as the MCP schema requires)
// without being decoded, and the line after it is served normally.
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
// execution), overriding the supervisor's (supervisor.Limits.RequestTimeout).
func WithRequestTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("stdio: request timeout must be positive")
		}
		o.requestTimeout = d
		return nil
	}
}

// WithGracePeriod bounds how long the transport waits, once it is told to
// stop (or input has ended and every response is out), for handlers that
// have not returned yet (default 5 s). Handlers still running then are
// reported through the logger and abandoned; their results are discarded.
func WithGracePeriod(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("stdio: grace period must be positive")
		}
		o.gracePeriod = d
		return nil
	}
}

// WithMaxSubscriptions bounds the subscriptions/listen streams open at
// once on the connection (default 32); a listen over it gets -32603. Each
// stream also takes a slot of the executor's subscription cap, shared by
// every transport of the tree (supervisor.Limits.MaxSubscriptions): the
// private tree the transport creates without [WithSupervisor] is sized so
// that only this bound applies. An open stream is an actor under
// the connection with no goroutine of its own, and holds no execution
// slot.
func WithMaxSubscriptions(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return errors.New("stdio: max subscriptions must be positive")
		}
		o.maxSubscriptions = n
		return nil
	}
}

// WithNotificationMethods lists the application notifications [Notify]
// may send on the connection (default none). Each must start with
// "notifications/" and must not be a notification the protocol defines,
// such as notifications/progress or notifications/cancelled.
func WithNotificationMethods(methods ...string) Option {
	return func(o *options) error {
		for _, m := range methods {
			if err := checkNotificationMethod(m); err != nil {
				return err
			}
		}
		o.notificationMethods = append(o.notificationMethods, methods...)
		return nil
	}
}

// maxMethodBytes bounds an application notification's method name.
const maxMethodBytes = 256

func checkNotificationMethod(m string) error {
	const prefix = "notifications/"
	switch {
	case !strings.HasPrefix(m, prefix) || len(m) == len(prefix):
		return fmt.Errorf("stdio: notification method %q must start with %q", m, prefix)
	case len(m) > maxMethodBytes:
		return fmt.Errorf("stdio: notification method %q is longer than %d bytes", m, maxMethodBytes)
	case dispatch.IsProtocolNotification(m):
		return fmt.Errorf("stdio: notification method %q is defined by the protocol and cannot be sent by the application", m)
	case slices.ContainsFunc([]byte(m), func(b byte) bool { return b < 0x21 || b > 0x7e }):
		return fmt.Errorf("stdio: notification method %q must be printable ASCII without spaces", m)
	}
	return nil
}

// WithName registers the running transport under name, so other code can
// reach it with [Lookup] or pass [Name](name) to [Notify]. The name is
// released when the transport ends; starting a second transport under a
// name in use fails.
func WithName(name string) Option {
	return func(o *options) error {
		if name == "" {
			return errors.New("stdio: empty name")
		}
		o.name = name
		return nil
	}
}

// WithSupervisor runs the connection as a child of an existing supervision
// tree, whose executor limits, logger and instrumentation sink it uses;
// the transport does not close it. Without it the transport makes a
// private tree from the Runtime and closes it when it ends.
func WithSupervisor(s *supervisor.Supervisor) Option {
	return func(o *options) error { o.sup = s; return nil }
}
