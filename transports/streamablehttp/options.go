package streamablehttp

// The options of NewHandler (HandlerOption), Listen and Serve
// (ListenerOption), and of both (Option).

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/snodo-go/snodo/internal/limits"
	"github.com/snodo-go/snodo/supervisor"
)

// HandlerOption configures [NewHandler]. An invalid option makes it fail,
// naming the option, before anything starts.
type HandlerOption interface {
	applyHandler(*options) error
}

// ListenerOption configures the native listener, [Listen] and [Serve].
// The options of the listener alone are only ListenerOptions, so passing
// one to NewHandler does not compile: in an application's server, what
// they bound belongs to its own http.Server.
type ListenerOption interface {
	applyListener(*options) error
}

// Option configures both the native listener and a [Handler].
type Option interface {
	HandlerOption
	ListenerOption
}

// option is a named change to the options, valid for both constructors.
type option struct {
	name  string
	apply func(*options) error
}

func (o option) applyHandler(opts *options) error  { return o.run(opts) }
func (o option) applyListener(opts *options) error { return o.run(opts) }

func (o option) run(opts *options) error {
	if err := o.apply(opts); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// listenerOption is a named change valid for the native listener only.
type listenerOption option

func (o listenerOption) applyListener(opts *options) error { return option(o).run(opts) }

// Limits bound the requests of a [Handler] and of the native listener. A
// zero field keeps its default, or the value an earlier [WithLimits] gave
// it.
type Limits struct {
	// MaxBodyBytes bounds a request body; a larger declared
	// Content-Length gets 413 before anything is read. Default 2,000,000.
	MaxBodyBytes int64
	// BodyTimeout bounds the whole request body, from when the head is
	// complete (the listener) or the handler starts reading (a Handler).
	// A body not complete by then gets 408. Over HTTP/2 an application
	// server may not support read deadlines: the bound is then checked
	// each time a read returns, so it does not stop a client that keeps
	// sending small frames. Default 10 s.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of a response: a client that stops
	// reading has its request cancelled and its connection closed. A
	// Handler applies it to event-stream writes only, leaving plain
	// responses to the application server's own WriteTimeout; on the
	// native listener it bounds every write, and a write may then wait
	// up to a sixteenth longer (the connection keeps a deadline while it
	// is that close). Default 5 s.
	WriteTimeout time.Duration
	// KeepAlive is how long an event stream may stay silent before a
	// keepalive comment is written. Default 15 s.
	KeepAlive time.Duration
	// RequestTimeout is each request's deadline, queue wait plus
	// execution, in place of the supervision tree's
	// (supervisor.Limits.RequestTimeout). Progress does not extend it. A
	// request past it gets 504 (or, on an event stream, a final -32603
	// event). It does not apply to subscriptions/listen streams.
	RequestTimeout time.Duration
	// GracePeriod bounds how long closing waits for requests to leave the
	// transport, and for handlers that ignore cancellation in the private
	// tree the transport makes without [WithSupervisor]. Default 5 s.
	GracePeriod time.Duration
}

// ListenerLimits bound the connections of the native listener. A zero
// field keeps its default, or the value an earlier [WithListenerLimits]
// gave it.
type ListenerLimits struct {
	// MaxConnections bounds the open connections; a connection accepted
	// at the limit is closed without being read. Default 1,024.
	MaxConnections int
	// HeadTimeout bounds the request head: from accept for a connection's
	// first request, from its first byte for the next ones on a
	// kept-alive connection. A head not complete by then closes the
	// connection. Default 10 s.
	HeadTimeout time.Duration
	// ReadTimeout bounds each read of the head and the body. Default 5 s.
	ReadTimeout time.Duration
	// MaxHeaderBytes bounds the request head, request line included
	// (larger → 431). net/http enforces it with 4 KiB of read-ahead
	// slack, so values under 5,120 act as 5,120. Default 32,768.
	MaxHeaderBytes int
	// IdleTimeout bounds how long a kept-alive connection may wait for
	// its next request. Default 30 s.
	IdleTimeout time.Duration
	// DrainTimeout bounds a graceful shutdown: connections still open
	// after it are closed and their requests cancelled. Default 5 s.
	DrainTimeout time.Duration
}

// The defaults, stated in the comments of the options and fields that
// carry them.
const (
	defaultAddr           = "127.0.0.1:0"
	defaultPath           = "/mcp"
	defaultMaxBodyBytes   = 2_000_000
	defaultBodyTimeout    = 10 * time.Second
	defaultWriteTimeout   = 5 * time.Second
	defaultKeepAlive      = 15 * time.Second
	defaultGracePeriod    = 5 * time.Second
	defaultMaxConnections = 1024
	defaultHeadTimeout    = 10 * time.Second
	defaultReadTimeout    = 5 * time.Second
	defaultMaxHeaderBytes = 32_768
	defaultIdleTimeout    = 30 * time.Second
	defaultDrainTimeout   = 5 * time.Second
)

// defaultOriginHosts are the loopback names, the Origin hosts accepted
// unless WithAllowedOriginHosts says otherwise.
var defaultOriginHosts = []string{"127.0.0.1", "localhost", "::1"}

type options struct {
	path        string
	pathSet     bool
	originHosts []string
	hosts       []string
	limits      Limits
	sup         *supervisor.Supervisor
	principal   func(*http.Request) any
	sessions    *SessionConfig // nil: sessions off

	// Native listener only.
	addr        string
	listener    ListenerLimits
	middleware  []func(http.Handler) http.Handler
	netListener net.Listener
}

func defaultOptions() options {
	return options{
		path:        defaultPath,
		originHosts: defaultOriginHosts,
		limits: Limits{
			MaxBodyBytes: defaultMaxBodyBytes,
			BodyTimeout:  defaultBodyTimeout,
			WriteTimeout: defaultWriteTimeout,
			KeepAlive:    defaultKeepAlive,
			GracePeriod:  defaultGracePeriod,
		},
		addr: defaultAddr,
		listener: ListenerLimits{
			MaxConnections: defaultMaxConnections,
			HeadTimeout:    defaultHeadTimeout,
			ReadTimeout:    defaultReadTimeout,
			MaxHeaderBytes: defaultMaxHeaderBytes,
			IdleTimeout:    defaultIdleTimeout,
			DrainTimeout:   defaultDrainTimeout,
		},
	}
}

// WithPath sets the endpoint's path (default "/mcp" for the listener);
// other paths get 404. A Handler checks no path unless given one: the
// application's mux routes to it.
func WithPath(p string) Option {
	return option{"WithPath", func(o *options) error {
		if p == "" || p[0] != '/' {
			return errors.New("path must start with /")
		}
		o.path, o.pathSet = p, true
		return nil
	}}
}

// WithAllowedOriginHosts replaces the hosts an Origin header may name
// (default: 127.0.0.1, localhost, ::1). An entry with a port
// ("localhost:3000", "[::1]:3000") also pins the port. A request without
// Origin is not affected; an Origin with userinfo, or several Origin
// headers, is always refused (403).
func WithAllowedOriginHosts(hosts ...string) Option {
	return option{"WithAllowedOriginHosts", func(o *options) error {
		if _, err := parseHostRules(hosts); err != nil {
			return err
		}
		o.originHosts = append([]string(nil), hosts...)
		return nil
	}}
}

// WithAllowedHosts makes the Host header name one of hosts (403
// otherwise); an entry with a port pins the port. It is off by default,
// because a reverse proxy commonly forwards the public name.
func WithAllowedHosts(hosts ...string) Option {
	return option{"WithAllowedHosts", func(o *options) error {
		if len(hosts) == 0 {
			return errors.New("at least one host is needed")
		}
		if _, err := parseHostRules(hosts); err != nil {
			return err
		}
		o.hosts = append([]string(nil), hosts...)
		return nil
	}}
}

// WithLimits sets the bounds of each request; see [Limits] for each one
// and its default.
func WithLimits(l Limits) Option {
	return option{"WithLimits", func(o *options) error {
		switch {
		case l.MaxBodyBytes < 0:
			return errors.New("MaxBodyBytes must not be negative")
		case l.BodyTimeout < 0:
			return errors.New("BodyTimeout must not be negative")
		case l.WriteTimeout < 0:
			return errors.New("WriteTimeout must not be negative")
		case l.KeepAlive < 0:
			return errors.New("KeepAlive must not be negative")
		case l.RequestTimeout < 0:
			return errors.New("RequestTimeout must not be negative")
		case l.GracePeriod < 0:
			return errors.New("GracePeriod must not be negative")
		}
		limits.Merge(&o.limits.MaxBodyBytes, l.MaxBodyBytes)
		limits.Merge(&o.limits.BodyTimeout, l.BodyTimeout)
		limits.Merge(&o.limits.WriteTimeout, l.WriteTimeout)
		limits.Merge(&o.limits.KeepAlive, l.KeepAlive)
		limits.Merge(&o.limits.RequestTimeout, l.RequestTimeout)
		limits.Merge(&o.limits.GracePeriod, l.GracePeriod)
		return nil
	}}
}

// WithSupervisor runs the transport's actors under an existing supervision
// tree, whose executor limits, logger and instrumentation sink it uses;
// the transport does not close it. Without it the transport makes a
// private tree from the Runtime and closes it when it stops.
func WithSupervisor(s *supervisor.Supervisor) Option {
	return option{"WithSupervisor", func(o *options) error {
		if s == nil {
			return errors.New("nil supervisor")
		}
		o.sup = s
		return nil
	}}
}

// WithPrincipal sets how the verified identity of a request is found: the
// function reads what the application's authentication middleware put in
// the *http.Request (usually its context). The default reads
// [ContextWithPrincipal]. Identity never comes from the MCP message.
func WithPrincipal(f func(*http.Request) any) Option {
	return option{"WithPrincipal", func(o *options) error {
		if f == nil {
			return errors.New("nil principal function")
		}
		o.principal = f
		return nil
	}}
}

// WithAddr sets the address the listener binds (default "127.0.0.1:0", an
// ephemeral port; [Server.URL] reports it).
func WithAddr(addr string) ListenerOption {
	return listenerOption{"WithAddr", func(o *options) error { o.addr = addr; return nil }}
}

// WithListener serves on ln, a listener the application opened (so that
// it knows the address before the server starts, or was handed a socket),
// instead of binding [WithAddr]'s address. The server closes ln when it
// stops.
func WithListener(ln net.Listener) ListenerOption {
	return listenerOption{"WithListener", func(o *options) error {
		if ln == nil {
			return errors.New("nil net.Listener")
		}
		o.netListener = ln
		return nil
	}}
}

// WithListenerLimits sets the bounds of the listener's connections; see
// [ListenerLimits] for each one and its default.
func WithListenerLimits(l ListenerLimits) ListenerOption {
	return listenerOption{"WithListenerLimits", func(o *options) error {
		switch {
		case l.MaxConnections < 0:
			return errors.New("MaxConnections must not be negative")
		case l.HeadTimeout < 0:
			return errors.New("HeadTimeout must not be negative")
		case l.ReadTimeout < 0:
			return errors.New("ReadTimeout must not be negative")
		case l.MaxHeaderBytes < 0:
			return errors.New("MaxHeaderBytes must not be negative")
		case l.IdleTimeout < 0:
			return errors.New("IdleTimeout must not be negative")
		case l.DrainTimeout < 0:
			return errors.New("DrainTimeout must not be negative")
		}
		limits.Merge(&o.listener.MaxConnections, l.MaxConnections)
		limits.Merge(&o.listener.HeadTimeout, l.HeadTimeout)
		limits.Merge(&o.listener.ReadTimeout, l.ReadTimeout)
		limits.Merge(&o.listener.MaxHeaderBytes, l.MaxHeaderBytes)
		limits.Merge(&o.listener.IdleTimeout, l.IdleTimeout)
		limits.Merge(&o.listener.DrainTimeout, l.DrainTimeout)
		return nil
	}}
}

// WithHTTPMiddleware wraps the listener's whole handler in mw, so that
// the application can add what its own http.Server would have: an
// authentication check in front of the endpoint, or other paths served
// beside it (a well-known document, a health check). The middleware sees
// every request the listener reads, whatever its path, before the
// transport's checks; what it passes on reaches the endpoint, and a path
// other than the endpoint's still gets 404 there. Given several times,
// the first is the outermost. An application mounting a [Handler] wraps
// it itself.
func WithHTTPMiddleware(mw func(http.Handler) http.Handler) ListenerOption {
	return listenerOption{"WithHTTPMiddleware", func(o *options) error {
		if mw == nil {
			return errors.New("nil HTTP middleware")
		}
		o.middleware = append(o.middleware, mw)
		return nil
	}}
}
