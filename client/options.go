package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

// Defaults.
const (
	DefaultRequestTimeout = 60 * time.Second
	DefaultProbeTimeout   = 10 * time.Second
	DefaultMaxPages       = 1000
	DefaultMaxInputRounds = 10
	// DefaultRetryDelay is how long the client waits before retrying a
	// multi round-trip request whose result carried only requestState.
	DefaultRetryDelay = 250 * time.Millisecond
)

// ElicitationHandler answers elicitation/create: it asks the user.
type ElicitationHandler func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)

// SamplingHandler answers sampling/createMessage: it asks a model.
type SamplingHandler func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)

// RootsHandler answers roots/list.
type RootsHandler func(ctx context.Context) ([]mcp.Root, error)

type config struct {
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
	elicitURL      bool
	sample         SamplingHandler
	roots          RootsHandler
	cache          *Cache
	cacheOff       bool
	cacheIdentity  string
	trace          func(sent bool, frame []byte)
	now            func() time.Time
}

// Option configures a Client.
type Option func(*config) error

// WithClientInfo sets how the client describes itself to servers (default
// name "snodo-go", version "0").
func WithClientInfo(info mcp.Implementation) Option {
	return func(c *config) error {
		if info.Name == "" || info.Version == "" {
			return errors.New("client: client info needs a name and a version")
		}
		c.info = info
		return nil
	}
}

// WithProtocolVersions limits the revisions the client offers, in any
// order; the newest the server shares is used. Unknown revisions are an
// error. The default is every revision of [mcp.Versions].
func WithProtocolVersions(versions ...string) Option {
	return func(c *config) error {
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
	}
}

// WithRequestTimeout bounds each request (default 60 s) unless its
// context has an earlier deadline. A request that times out is cancelled
// at the server.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return errors.New("client: request timeout must be positive")
		}
		c.requestTimeout = d
		return nil
	}
}

// WithProbeTimeout bounds the server/discover probe (default 10 s). A
// server that does not answer in time is taken to be of the initialize
// era.
func WithProbeTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return errors.New("client: probe timeout must be positive")
		}
		c.probeTimeout = d
		return nil
	}
}

// WithMaxPages bounds how many pages a List call follows (default 1,000).
func WithMaxPages(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return errors.New("client: max pages must be positive")
		}
		c.maxPages = n
		return nil
	}
}

// WithMaxInputRounds bounds the retries of one multi round-trip request
// (default 10).
func WithMaxInputRounds(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return errors.New("client: max input rounds must be positive")
		}
		c.maxInputRounds = n
		return nil
	}
}

// WithLogger sets the logger for the client's own warnings (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("client: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithLogMessages asks the server for log messages at level and above
// (the io.modelcontextprotocol/logLevel request key on 2026-07-28,
// logging/setLevel in the initialize era) and passes each to fn.
func WithLogMessages(level string, fn func(mcp.LogMessage)) Option {
	return func(c *config) error {
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
	}
}

// WithElicitation answers the server's elicitation requests with h and
// declares the elicitation capability (form mode, plus URL mode when url
// is true).
func WithElicitation(h ElicitationHandler, url bool) Option {
	return func(c *config) error {
		if h == nil {
			return errors.New("client: nil elicitation handler")
		}
		c.elicit, c.elicitURL = h, url
		return nil
	}
}

// WithSampling answers the server's sampling requests with h and declares
// the sampling capability.
func WithSampling(h SamplingHandler) Option {
	return func(c *config) error {
		if h == nil {
			return errors.New("client: nil sampling handler")
		}
		c.sample = h
		return nil
	}
}

// WithRoots answers the server's roots requests with h and declares the
// roots capability.
func WithRoots(h RootsHandler) Option {
	return func(c *config) error {
		if h == nil {
			return errors.New("client: nil roots handler")
		}
		c.roots = h
		return nil
	}
}

// WithCache stores cacheable results in cache, which several clients may
// share. identity names the authorization context (for example the user a
// token belongs to): results the server marks private are reused only by
// clients with the same identity and transport. By default each Client
// has a cache of its own.
func WithCache(cache *Cache, identity string) Option {
	return func(c *config) error {
		if cache == nil {
			return errors.New("client: nil cache")
		}
		c.cache, c.cacheIdentity = cache, identity
		return nil
	}
}

// WithoutCache turns result caching off.
func WithoutCache() Option {
	return func(c *config) error { c.cacheOff = true; return nil }
}

// WithTrace passes every frame the client sends or receives to fn, which
// must not retain it. Several traces are called in the order given.
func WithTrace(fn func(sent bool, frame []byte)) Option {
	return func(c *config) error {
		if fn == nil {
			return errors.New("client: nil trace")
		}
		if prev := c.trace; prev != nil {
			c.trace = func(sent bool, frame []byte) { prev(sent, frame); fn(sent, frame) }
		} else {
			c.trace = fn
		}
		return nil
	}
}
