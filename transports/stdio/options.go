package stdio

// The options of Serve and Start.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/snodo-go/snodo/internal/limits"
	"github.com/snodo-go/snodo/internal/mcpwire"
	"github.com/snodo-go/snodo/supervisor"
)

// Limits bound one stdio transport. A zero field keeps its default, or
// the value an earlier [WithLimits] gave it.
type Limits struct {
	// WriteTimeout bounds each write to the output. A write that blocks
	// past it, or fails, ends the connection: bytes may already have
	// reached the device, so nothing is retried and nothing more is
	// written. Default 5 s.
	WriteTimeout time.Duration
	// MaxLineBytes bounds one inbound message, counting its newline. A
	// longer line is answered with -32600 and no id (an id that cannot be
	// read is left out, as the MCP schema requires) without being decoded,
	// and the line after it is served normally; the Runtime's
	// instrumentation sink hears of it as a refusal (reason
	// line_too_long). At most this much of one line is ever held in
	// memory. Default 2,000,000; at least 2.
	MaxLineBytes int
	// RequestTimeout is each request's deadline (queue wait plus
	// execution), in place of the supervision tree's
	// (supervisor.Limits.RequestTimeout).
	RequestTimeout time.Duration
	// GracePeriod bounds how long the transport waits, once it is told to
	// stop (or input has ended and every response is out), for handlers
	// that have not returned yet. Handlers still running then are reported
	// through the logger and abandoned; their results are discarded.
	// Default 5 s.
	GracePeriod time.Duration
	// MaxSubscriptions bounds the subscriptions/listen streams open at
	// once on the connection; a listen over it gets -32603. Each stream
	// also takes a slot of the tree's subscription cap
	// (supervisor.Limits.MaxSubscriptions); the private tree the
	// transport makes without [WithSupervisor] is sized so that only this
	// bound applies. An open stream is an actor under the connection with
	// no goroutine of its own, and holds no execution slot. Default 32.
	MaxSubscriptions int
}

// The defaults of Limits, stated in its field comments.
const (
	defaultWriteTimeout     = 5 * time.Second
	defaultMaxLineBytes     = 2_000_000
	defaultGracePeriod      = 5 * time.Second
	defaultMaxSubscriptions = 32
)

type options struct {
	input               io.Reader
	output              io.Writer
	limits              Limits
	notificationMethods []string
	name                string
	sup                 *supervisor.Supervisor
}

func defaultOptions() options {
	return options{
		input:  os.Stdin,
		output: os.Stdout,
		limits: Limits{
			WriteTimeout:     defaultWriteTimeout,
			MaxLineBytes:     defaultMaxLineBytes,
			GracePeriod:      defaultGracePeriod,
			MaxSubscriptions: defaultMaxSubscriptions,
		},
	}
}

// Option configures [Serve] and [Start]. An invalid option makes them
// fail, naming the option, before anything starts.
type Option interface {
	applyStdio(*options) error
}

type option struct {
	name  string
	apply func(*options) error
}

func (o option) applyStdio(opts *options) error {
	if err := o.apply(opts); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// WithInput sets the input stream (default os.Stdin). The transport never
// closes it.
func WithInput(r io.Reader) Option {
	return option{"WithInput", func(o *options) error {
		if r == nil {
			return errors.New("nil input")
		}
		o.input = r
		return nil
	}}
}

// WithOutput sets the output stream (default os.Stdout). The transport
// never closes it.
func WithOutput(w io.Writer) Option {
	return option{"WithOutput", func(o *options) error {
		if w == nil {
			return errors.New("nil output")
		}
		o.output = w
		return nil
	}}
}

// WithLimits sets the transport's bounds; see [Limits] for each one and
// its default.
func WithLimits(l Limits) Option {
	return option{"WithLimits", func(o *options) error {
		switch {
		case l.WriteTimeout < 0:
			return errors.New("WriteTimeout must not be negative")
		case l.MaxLineBytes < 0 || l.MaxLineBytes == 1:
			return errors.New("MaxLineBytes must be at least 2")
		case l.RequestTimeout < 0:
			return errors.New("RequestTimeout must not be negative")
		case l.GracePeriod < 0:
			return errors.New("GracePeriod must not be negative")
		case l.MaxSubscriptions < 0:
			return errors.New("MaxSubscriptions must not be negative")
		}
		limits.Merge(&o.limits.WriteTimeout, l.WriteTimeout)
		limits.Merge(&o.limits.MaxLineBytes, l.MaxLineBytes)
		limits.Merge(&o.limits.RequestTimeout, l.RequestTimeout)
		limits.Merge(&o.limits.GracePeriod, l.GracePeriod)
		limits.Merge(&o.limits.MaxSubscriptions, l.MaxSubscriptions)
		return nil
	}}
}

// WithNotificationMethods lists the application notifications
// [Conn.Notify] may send on the connection (default none). Each must
// start with "notifications/" and must not be a notification the
// protocol defines, such as notifications/progress or
// notifications/cancelled.
func WithNotificationMethods(methods ...string) Option {
	return option{"WithNotificationMethods", func(o *options) error {
		for _, m := range methods {
			if err := checkNotificationMethod(m); err != nil {
				return err
			}
		}
		o.notificationMethods = append(o.notificationMethods, methods...)
		return nil
	}}
}

// maxMethodBytes bounds an application notification's method name.
const maxMethodBytes = 256

func checkNotificationMethod(m string) error {
	const prefix = "notifications/"
	switch {
	case !strings.HasPrefix(m, prefix) || len(m) == len(prefix):
		return fmt.Errorf("notification method %q must start with %q", m, prefix)
	case len(m) > maxMethodBytes:
		return fmt.Errorf("notification method %q is longer than %d bytes", m, maxMethodBytes)
	case mcpwire.IsProtocolNotification(m):
		return fmt.Errorf("notification method %q is defined by the protocol and cannot be sent by the application", m)
	case slices.ContainsFunc([]byte(m), func(b byte) bool { return b < 0x21 || b > 0x7e }):
		return fmt.Errorf("notification method %q must be printable ASCII without spaces", m)
	}
	return nil
}

// WithName names the connection in its supervision tree: the tree shows
// it as the connection's name attribute, and other code holding the
// supervisor finds the handle with [Lookup]. The name is released when
// the transport ends; starting a second transport under a name in use in
// the same tree fails.
func WithName(name string) Option {
	return option{"WithName", func(o *options) error {
		if name == "" {
			return errors.New("empty name")
		}
		o.name = name
		return nil
	}}
}

// WithSupervisor runs the connection as a child of an existing supervision
// tree, whose executor limits, logger and instrumentation sink it uses;
// the transport does not close it. Without it the transport makes a
// private tree from the Runtime and closes it when it ends.
func WithSupervisor(s *supervisor.Supervisor) Option {
	return option{"WithSupervisor", func(o *options) error {
		if s == nil {
			return errors.New("nil supervisor")
		}
		o.sup = s
		return nil
	}}
}
