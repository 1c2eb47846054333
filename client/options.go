package client

// The Client's options and the handlers it answers the server with.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

// The defaults of [Limits].
const (
	defaultRequestTimeout = 60 * time.Second
	defaultProbeTimeout   = 10 * time.Second
	defaultMaxPages       = 1000
	defaultMaxInputRounds = 10
	defaultRetryDelay     = 250 * time.Millisecond
	defaultListenBuffer   = 100
)

// ElicitationHandler answers elicitation/create: it asks the user.
type ElicitationHandler func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)

// SamplingHandler answers sampling/createMessage: it asks a model.
type SamplingHandler func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)

// RootsHandler answers roots/list.
type RootsHandler func(ctx context.Context) ([]mcp.Root, error)

type config struct {
	reconnect      *Reconnect // nil: no reconnection
	info           mcp.Implementation
	versions       []string
	requestTimeout time.Duration
	probeTimeout   time.Duration
	maxPages       int
	maxInputRounds int
	retryDelay     time.Duration
	logger         *slog.Logger
	logLevel       string
	onLog          func(mcp.LogMessage)
	elicit         ElicitationHandler
	elicitForm     bool // declare form mode
	elicitURL      bool // declare URL mode
	listenBuffer   int
	sample         SamplingHandler
	roots          RootsHandler
	cache          *Cache
	cacheOff       bool
	cacheIdentity  string
	trace          func(sent bool, frame []byte)
	now            func() time.Time
}

// Option configures a Client.
type Option interface {
	applyClient(*config) error
}

// optionFunc is an Option made of a function.
type optionFunc func(*config) error

func (f optionFunc) applyClient(c *config) error { return f(c) }

// WithClientInfo sets how the client describes itself to servers (default
// name "snodo-go", version "0").
func WithClientInfo(info mcp.Implementation) Option {
	return optionFunc(func(c *config) error {
		if info.Name == "" || info.Version == "" {
			return errors.New("client: client info needs a name and a version")
		}
		c.info = info
		return nil
	})
}

// WithProtocolVersions limits the revisions the client offers, in any
// order; the newest the server shares is used. Unknown revisions are an
// error. The default is every revision of [mcp.Versions].
func WithProtocolVersions(versions ...string) Option {
	return optionFunc(func(c *config) error {
		if len(versions) == 0 {
			return errors.New("client: WithProtocolVersions needs at least one version")
		}
		for _, v := range versions {
			if !slices.Contains(mcp.Versions(), v) {
				return fmt.Errorf("client: unknown protocol version %q", v)
			}
		}
		vs := slices.Clone(versions)
		slices.Sort(vs)
		slices.Reverse(vs)
		c.versions = slices.Compact(vs)
		return nil
	})
}

// Limits bounds what a Client waits for and how far it follows a server.
// A zero field keeps its default.
type Limits struct {
	// RequestTimeout bounds each request unless its context has an
	// earlier deadline (default 60 s). A request that times out is
	// cancelled at the server.
	RequestTimeout time.Duration
	// ProbeTimeout bounds the server/discover probe (default 10 s). A
	// server that does not answer in time is taken to be of the
	// initialize era.
	ProbeTimeout time.Duration
	// MaxPages bounds how many pages a List call follows (default 1,000).
	MaxPages int
	// MaxInputRounds bounds the retries of one multi round-trip request
	// (default 10).
	MaxInputRounds int
	// RetryDelay is how long the client waits before retrying a multi
	// round-trip request whose result carried only requestState (default
	// 250 ms).
	RetryDelay time.Duration
	// ListenBuffer is how many events a [Subscription] holds for its
	// reader before it drops the oldest (default 100).
	ListenBuffer int
}

// WithLimits sets the client's limits; a zero field keeps its default. A
// negative one is an error.
func WithLimits(l Limits) Option {
	return optionFunc(func(c *config) error {
		if l.RequestTimeout < 0 || l.ProbeTimeout < 0 || l.RetryDelay < 0 || l.MaxPages < 0 || l.MaxInputRounds < 0 || l.ListenBuffer < 0 {
			return fmt.Errorf("client: WithLimits: negative limit in %+v", l)
		}
		setIf(&c.requestTimeout, l.RequestTimeout)
		setIf(&c.probeTimeout, l.ProbeTimeout)
		setIf(&c.retryDelay, l.RetryDelay)
		setIf(&c.maxPages, l.MaxPages)
		setIf(&c.maxInputRounds, l.MaxInputRounds)
		setIf(&c.listenBuffer, l.ListenBuffer)
		return nil
	})
}

// setIf sets *dst to v unless v is zero.
func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// WithLogger sets the logger for the client's own warnings (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		if l == nil {
			return errors.New("client: nil logger")
		}
		c.logger = l
		return nil
	})
}

// WithLogMessages asks the server for log messages at level and above
// (the io.modelcontextprotocol/logLevel request key on 2026-07-28,
// logging/setLevel in the initialize era) and passes each to fn.
func WithLogMessages(level string, fn func(mcp.LogMessage)) Option {
	return optionFunc(func(c *config) error {
		switch level {
		case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		default:
			return fmt.Errorf("client: unknown log level %q", level)
		}
		if fn == nil {
			return errors.New("client: nil log message handler")
		}
		c.logLevel, c.onLog = level, fn
		return nil
	})
}

// WithElicitation answers the server's elicitation requests with h and
// declares the elicitation capability in the modes listed:
// [mcp.ElicitModeForm] (the mode declared when none is listed) and
// [mcp.ElicitModeURL], whose requests h then receives as well. Any other
// mode is refused.
func WithElicitation(h ElicitationHandler, modes ...string) Option {
	return optionFunc(func(c *config) error {
		if h == nil {
			return errors.New("client: nil elicitation handler")
		}
		form, url := len(modes) == 0, false
		for _, m := range modes {
			switch m {
			case mcp.ElicitModeForm:
				form = true
			case mcp.ElicitModeURL:
				url = true
			default:
				return fmt.Errorf("client: unknown elicitation mode %q", m)
			}
		}
		c.elicit, c.elicitForm, c.elicitURL = h, form, url
		return nil
	})
}

// WithSampling answers the server's sampling requests with h and declares
// the sampling capability.
func WithSampling(h SamplingHandler) Option {
	return optionFunc(func(c *config) error {
		if h == nil {
			return errors.New("client: nil sampling handler")
		}
		c.sample = h
		return nil
	})
}

// WithRoots answers the server's roots requests with h and declares the
// roots capability.
func WithRoots(h RootsHandler) Option {
	return optionFunc(func(c *config) error {
		if h == nil {
			return errors.New("client: nil roots handler")
		}
		c.roots = h
		return nil
	})
}

// WithCache stores cacheable results in cache, which several clients may
// share. identity names the authorization context (for example the user a
// token belongs to): results the server marks private are reused only by
// clients with the same identity and transport. By default each Client
// has a cache of its own; a nil cache turns result caching off.
func WithCache(cache *Cache, identity string) Option {
	return optionFunc(func(c *config) error {
		c.cache, c.cacheIdentity, c.cacheOff = cache, identity, cache == nil
		return nil
	})
}

// WithTrace passes every frame the client sends or receives to fn, which
// must not retain it. Several traces are called in the order given.
func WithTrace(fn func(sent bool, frame []byte)) Option {
	return optionFunc(func(c *config) error {
		if fn == nil {
			return errors.New("client: nil trace")
		}
		if prev := c.trace; prev != nil {
			c.trace = func(sent bool, frame []byte) { prev(sent, frame); fn(sent, frame) }
		} else {
			c.trace = fn
		}
		return nil
	})
}
