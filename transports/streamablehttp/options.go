package streamablehttp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/snodo-go/snodo/supervisor"
)

// Defaults, used where the corresponding option is not given.
const (
	DefaultAddr             = "127.0.0.1:0"
	DefaultPath             = "/mcp"
	DefaultMaxBodyBytes     = 2_000_000
	DefaultMaxHeaderBytes   = 32_768
	DefaultMaxConnections   = 1024
	DefaultHeadTimeout      = 10 * time.Second
	DefaultReadTimeout      = 5 * time.Second
	DefaultBodyTimeout      = 10 * time.Second
	DefaultWriteTimeout     = 5 * time.Second
	DefaultIdleTimeout      = 30 * time.Second
	DefaultKeepAlive        = 15 * time.Second
	DefaultDrainTimeout     = 5 * time.Second
	DefaultGracePeriod      = 5 * time.Second
	DefaultMaxSubscriptions = 256
)

// DefaultAllowedOriginHosts are the Origin hosts accepted unless
// [WithAllowedOriginHosts] says otherwise: the loopback names.
var DefaultAllowedOriginHosts = []string{"127.0.0.1", "localhost", "::1"}

type options struct {
	path               string
	pathSet            bool
	originHosts        []string
	hosts              []string
	maxBodyBytes       int64
	bodyTimeout        time.Duration
	writeTimeout       time.Duration
	requestTimeout     time.Duration
	keepAlive          time.Duration
	gracePeriod        time.Duration
	maxSubscriptions   int
	sup                *supervisor.Supervisor
	principal          func(*http.Request) any
	sessions           *SessionConfig // nil: sessions off
	listenerOnlyOption string         // the first listener-only option given, for NewHandler's error

	// Native listener only.
	addr           string
	maxConnections int
	headTimeout    time.Duration
	readTimeout    time.Duration
	maxHeaderBytes int
	idleTimeout    time.Duration
	drainTimeout   time.Duration
	middleware     []func(http.Handler) http.Handler
	netListener    net.Listener
}

func defaultOptions() options {
	return options{
		path:           DefaultPath,
		originHosts:    DefaultAllowedOriginHosts,
		maxBodyBytes:   DefaultMaxBodyBytes,
		bodyTimeout:    DefaultBodyTimeout,
		writeTimeout:   DefaultWriteTimeout,
		keepAlive:      DefaultKeepAlive,
		gracePeriod:    DefaultGracePeriod,
		addr:           DefaultAddr,
		maxConnections: DefaultMaxConnections,
		headTimeout:    DefaultHeadTimeout,
		readTimeout:    DefaultReadTimeout,
		maxHeaderBytes: DefaultMaxHeaderBytes,
		idleTimeout:    DefaultIdleTimeout,
		drainTimeout:   DefaultDrainTimeout,
	}
}

// Option configures the native listener ([Listen], [Serve]) or a
// [Handler]. Options marked "listener only" make [NewHandler] fail: in an
// application's server those bounds belong to its own http.Server.
type Option func(*options) error

func positive(name string, d time.Duration, set func(*options, time.Duration)) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("streamablehttp: %s must be positive", name)
		}
		set(o, d)
		return nil
	}
}

func listenerOnly(name string, apply func(*options) error) Option {
	return func(o *options) error {
		if o.listenerOnlyOption == "" {
			o.listenerOnlyOption = name
		}
		return apply(o)
	}
}

// WithPath sets the endpoint's path (default "/mcp" for the listener);
// other paths get 404. A Handler checks no path unless given one: the
// application's mux routes to it.
func WithPath(p string) Option {
	return func(o *options) error {
		if p == "" || p[0] != '/' {
			return errors.New("streamablehttp: path must start with /")
		}
		o.path, o.pathSet = p, true
		return nil
	}
}

// WithAllowedOriginHosts replaces the hosts an Origin header may name
// (default: 127.0.0.1, localhost, ::1). An entry with a port
// ("localhost:3000", "[::1]:3000") also pins the port. A request without
// Origin is not affected; an Origin with userinfo, or several Origin
// headers, is always refused (403).
func WithAllowedOriginHosts(hosts ...string) Option {
	return func(o *options) error {
		if _, err := parseHostRules(hosts); err != nil {
			return err
		}
		o.originHosts = append([]string(nil), hosts...)
		return nil
	}
}

// WithAllowedHosts makes the Host header name one of hosts (403
// otherwise); an entry with a port pins the port. It is off by default,
// because a reverse proxy commonly forwards the public name.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) error {
		if len(hosts) == 0 {
			return errors.New("streamablehttp: WithAllowedHosts needs at least one host")
		}
		if _, err := parseHostRules(hosts); err != nil {
			return err
		}
		o.hosts = append([]string(nil), hosts...)
		return nil
	}
}

// WithMaxBodyBytes bounds a request body (default 2,000,000); a larger
// declared Content-Length gets 413 before anything is read.
func WithMaxBodyBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return errors.New("streamablehttp: max body bytes must be positive")
		}
		o.maxBodyBytes = n
		return nil
	}
}

// WithBodyTimeout bounds the whole request body, from when the head is
// complete (the listener) or the handler starts reading (a Handler);
// default 10 s. A body not complete by then gets 408. Over HTTP/2 an
// application server may not support read deadlines: the bound is then
// checked each time a read returns, so it does not stop a client that
// keeps sending small frames.
func WithBodyTimeout(d time.Duration) Option {
	return positive("body timeout", d, func(o *options, d time.Duration) { o.bodyTimeout = d })
}

// WithWriteTimeout bounds each write of a response (default 5 s): a client
// that stops reading has its request cancelled and its connection closed.
// A Handler applies it to event-stream writes only, leaving plain
// responses to the application server's own WriteTimeout.
func WithWriteTimeout(d time.Duration) Option {
	return positive("write timeout", d, func(o *options, d time.Duration) { o.writeTimeout = d })
}

// WithRequestTimeout sets each request's deadline, queue wait plus
// execution (default: the supervisor's, supervisor.Limits.RequestTimeout). Progress does not extend it.
// A request past it gets 504 (or, on an event stream, a final -32603
// event). It does not apply to subscriptions/listen streams.
func WithRequestTimeout(d time.Duration) Option {
	return positive("request timeout", d, func(o *options, d time.Duration) { o.requestTimeout = d })
}

// WithKeepAlive sets how long an event stream may stay silent before a
// keepalive comment is written (default 15 s).
func WithKeepAlive(d time.Duration) Option {
	return positive("keepalive interval", d, func(o *options, d time.Duration) { o.keepAlive = d })
}

// WithMaxSubscriptions bounds the open subscriptions/listen streams
// (default 256; over the cap → 503). The cap is counted in the
// supervision tree's executor, so transports sharing a tree share it;
// this option sizes the private tree the transport creates and cannot be
// combined with [WithSupervisor] (set supervisor.Limits.MaxSubscriptions
// there instead).
func WithMaxSubscriptions(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return errors.New("streamablehttp: max subscriptions must be positive")
		}
		o.maxSubscriptions = n
		return nil
	}
}

// WithSupervisor runs the transport's actors under an existing supervision
// tree, whose executor limits, logger and instrumentation sink it uses;
// the transport does not close it. Without it the transport makes a
// private tree from the Runtime and closes it when it stops.
func WithSupervisor(s *supervisor.Supervisor) Option {
	return func(o *options) error {
		if s == nil {
			return errors.New("streamablehttp: nil supervisor")
		}
		o.sup = s
		return nil
	}
}

// WithPrincipal sets how the verified identity of a request is found: the
// function reads what the application's authentication middleware put in
// the *http.Request (usually its context). The default reads
// [ContextWithPrincipal]. Identity never comes from the MCP message.
func WithPrincipal(f func(*http.Request) any) Option {
	return func(o *options) error {
		if f == nil {
			return errors.New("streamablehttp: nil principal function")
		}
		o.principal = f
		return nil
	}
}

// WithGracePeriod bounds how long closing waits for handlers that ignore
// cancellation, when the transport owns its executor (default 5 s).
func WithGracePeriod(d time.Duration) Option {
	return positive("grace period", d, func(o *options, d time.Duration) { o.gracePeriod = d })
}

// WithAddr sets the address the listener binds (default "127.0.0.1:0", an
// ephemeral port; [Server.URL] reports it). Listener only.
func WithAddr(addr string) Option {
	return listenerOnly("WithAddr", func(o *options) error { o.addr = addr; return nil })
}

// WithListener serves on ln, a listener the application opened (so that
// it knows the address before the server starts, or was handed a socket),
// instead of binding [WithAddr]'s address. The server closes ln when it
// stops. Listener only.
func WithListener(ln net.Listener) Option {
	return listenerOnly("WithListener", func(o *options) error {
		if ln == nil {
			return errors.New("streamablehttp: nil net.Listener")
		}
		o.netListener = ln
		return nil
	})
}

// WithMaxConnections bounds the open connections (default 1,024). A
// connection accepted at the limit is closed without being read. Listener
// only.
func WithMaxConnections(n int) Option {
	return listenerOnly("WithMaxConnections", func(o *options) error {
		if n <= 0 {
			return errors.New("streamablehttp: max connections must be positive")
		}
		o.maxConnections = n
		return nil
	})
}

// WithHeadTimeout bounds the request head (default 10 s): from accept for
// a connection's first request, from its first byte for the next ones on
// a kept-alive connection. A head not complete by then closes the
// connection. Listener only.
func WithHeadTimeout(d time.Duration) Option {
	return listenerOnly("WithHeadTimeout", positive("head timeout", d, func(o *options, d time.Duration) { o.headTimeout = d }))
}

// WithReadTimeout bounds each read of the head and the body (default
// 5 s). Listener only.
func WithReadTimeout(d time.Duration) Option {
	return listenerOnly("WithReadTimeout", positive("read timeout", d, func(o *options, d time.Duration) { o.readTimeout = d }))
}

// WithMaxHeaderBytes bounds the request head, request line included
// (default 32,768; larger → 431). net/http enforces it with 4 KiB of
// read-ahead slack, so values under 5,120 act as 5,120. Listener only.
func WithMaxHeaderBytes(n int) Option {
	return listenerOnly("WithMaxHeaderBytes", func(o *options) error {
		if n <= 0 {
			return errors.New("streamablehttp: max header bytes must be positive")
		}
		o.maxHeaderBytes = n
		return nil
	})
}

// WithIdleTimeout bounds how long a kept-alive connection may wait for its
// next request (default 30 s). Listener only.
func WithIdleTimeout(d time.Duration) Option {
	return listenerOnly("WithIdleTimeout", positive("idle timeout", d, func(o *options, d time.Duration) { o.idleTimeout = d }))
}

// WithDrainTimeout bounds a graceful shutdown (default 5 s): connections
// still open after it are closed and their requests cancelled. Listener
// only.
func WithDrainTimeout(d time.Duration) Option {
	return listenerOnly("WithDrainTimeout", positive("drain timeout", d, func(o *options, d time.Duration) { o.drainTimeout = d }))
}

// WithHTTPMiddleware wraps the listener's whole handler in mw, so that
// the application can add what its own http.Server would have: an
// authentication check in front of the endpoint, or other paths served
// beside it (a well-known document, a health check). The middleware sees
// every request the listener reads, whatever its path, before the
// transport's checks; what it passes on reaches the endpoint, and a path
// other than the endpoint's still gets 404 there. Given several times,
// the first is the outermost. Listener only: an application mounting a
// [Handler] wraps it itself.
func WithHTTPMiddleware(mw func(http.Handler) http.Handler) Option {
	return listenerOnly("WithHTTPMiddleware", func(o *options) error {
		if mw == nil {
			return errors.New("streamablehttp: nil HTTP middleware")
		}
		o.middleware = append(o.middleware, mw)
		return nil
	})
}
