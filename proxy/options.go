// The options of Dial and NewGroup, and the bounds they carry.

package proxy

import (
	"errors"
	"log/slog"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Limits bound what one backend may bring into the proxy. A zero field
// keeps its default.
type Limits struct {
	// MaxItems is the most tools, prompts, resources and templates (all
	// kinds together) one backend's catalog holds; the items past it, in
	// the order the remote lists them, are left out and logged. Default
	// 1,000.
	MaxItems int
	// MaxHeldCalls is the most calls to an initialize-era remote held
	// open while the downstream client answers their input; an input
	// request of the remote past it is answered -32603. Default 100.
	MaxHeldCalls int
	// InputWait is how long a held call waits for the downstream
	// client's retry with the answer before it is cancelled upstream.
	// Default 1 minute.
	InputWait time.Duration
	// MaxFollowedTasks is the most tasks, created through the proxy,
	// whose status notifications are relayed at once (each on a listen
	// stream of its own upstream); the status of the tasks past it is
	// read with tasks/get. Default 100.
	MaxFollowedTasks int
}

func (l Limits) withDefaults() Limits {
	if l.MaxItems <= 0 {
		l.MaxItems = 1000
	}
	if l.MaxHeldCalls <= 0 {
		l.MaxHeldCalls = 100
	}
	if l.InputWait <= 0 {
		l.InputWait = time.Minute
	}
	if l.MaxFollowedTasks <= 0 {
		l.MaxFollowedTasks = 100
	}
	return l
}

// Option configures [Dial].
type Option interface{ applyProxy(*config) error }

type config struct {
	name      string
	info      *mcp.Implementation
	limits    Limits
	logger    *slog.Logger
	clientOpt []client.Option
	rtOpt     []dispatch.Option
	reconnect *client.Reconnect
}

type optionFunc func(*config) error

func (f optionFunc) applyProxy(c *config) error { return f(c) }

// WithName names the backend in errors and logs. Default: the remote's
// implementation name.
func WithName(name string) Option {
	return optionFunc(func(c *config) error {
		if name == "" {
			return errors.New("empty name")
		}
		c.name = name
		return nil
	})
}

// WithInfo sets the identity the proxy Runtime announces. Default: the
// remote's implementation (its name and version).
func WithInfo(info mcp.Implementation) Option {
	return optionFunc(func(c *config) error {
		if info.Name == "" || info.Version == "" {
			return errors.New("name and version are required")
		}
		c.info = &info
		return nil
	})
}

// WithLimits bounds the backend's catalog.
func WithLimits(l Limits) Option {
	return optionFunc(func(c *config) error {
		if l.MaxItems < 0 || l.MaxHeldCalls < 0 || l.InputWait < 0 || l.MaxFollowedTasks < 0 {
			return errors.New("a bound must not be negative")
		}
		c.limits = l
		return nil
	})
}

// WithLogger sets the logger for the proxy's own warnings (items left
// out, refreshes that failed) and is given to the client and the
// Runtime. Default: slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		if l == nil {
			return errors.New("nil logger")
		}
		c.logger = l
		return nil
	})
}

// WithClientOptions passes options to the client that reaches the remote
// (protocol versions, limits, a cache shared by several backends).
func WithClientOptions(opts ...client.Option) Option {
	return optionFunc(func(c *config) error { c.clientOpt = append(c.clientOpt, opts...); return nil })
}

// WithRuntimeOptions passes options to the proxy Runtime (an Authorizer,
// protocol versions, limits). Components given here are served beside
// the remote's.
func WithRuntimeOptions(opts ...dispatch.Option) Option {
	return optionFunc(func(c *config) error { c.rtOpt = append(c.rtOpt, opts...); return nil })
}

// WithReconnect has the backend's client open its connection again when
// it ends ([client.WithReconnect] with r), and the watcher of list changes
// subscribe again once it is back, refreshing the catalog (waiting
// between attempts as r says). Without it a backend whose connection
// ended fails every request until it is dialled again.
func WithReconnect(r client.Reconnect) Option {
	return optionFunc(func(c *config) error {
		c.reconnect = &r
		c.clientOpt = append(c.clientOpt, client.WithReconnect(r))
		return nil
	})
}
