// This file holds Sessions: the relay that lets an initialize-era session
// created on one instance be used through any other, its configuration
// and its lifetime.

package backplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// The defaults of SessionsConfig, stated in its field comments.
const (
	defaultRelayChunkBytes   = 64 << 10
	defaultRelayWindow       = 8
	defaultMaxRelays         = 256
	defaultRelayHeartbeat    = 5 * time.Second
	defaultRelayStallTimeout = 30 * time.Second
	defaultRelayOpenTimeout  = 5 * time.Second
)

// SessionsConfig bounds the relays of a [Sessions]. A zero field takes its
// default.
type SessionsConfig struct {
	// ChunkBytes is the most response bytes one NATS message of a relay
	// carries (default 64 KiB; at most the server's max payload less
	// 4 KiB).
	ChunkBytes int
	// Window is how many chunks the owner sends before the relaying
	// instance acknowledges the first of them (default 8): a client that
	// reads slowly holds the owner's response, not the instances' memory.
	Window int
	// MaxRelays bounds the relays in flight on an instance, both those it
	// relays to owners and those it serves as owner (default 256). A
	// request beyond either bound gets 503.
	MaxRelays int
	// Heartbeat is how often each side of a relay that has nothing else
	// to send says it is alive (default 5 s).
	Heartbeat time.Duration
	// StallTimeout ends a relay when nothing is heard from the other side
	// for this long, or the owner's window stays full for this long
	// (default 30 s): before the response's head the client gets 504,
	// after it the response is cut off.
	StallTimeout time.Duration
	// OpenTimeout is how long the relaying instance waits for the owner
	// to take a relay (default 5 s); an owner that does not, like one no
	// longer subscribed, is gone, and the client gets 404 as for any
	// unknown session.
	OpenTimeout time.Duration
}

// withDefaults fills the zero fields.
func (c SessionsConfig) withDefaults(maxPayload int64) (SessionsConfig, error) {
	if c.ChunkBytes < 0 || c.Window < 0 || c.MaxRelays < 0 || c.Heartbeat < 0 || c.StallTimeout < 0 || c.OpenTimeout < 0 {
		return c, errors.New("backplane: NewSessions: negative bound")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.ChunkBytes, defaultRelayChunkBytes)
	def(&c.Window, defaultRelayWindow)
	def(&c.MaxRelays, defaultMaxRelays)
	defD(&c.Heartbeat, defaultRelayHeartbeat)
	defD(&c.StallTimeout, defaultRelayStallTimeout)
	defD(&c.OpenTimeout, defaultRelayOpenTimeout)
	if maxPayload > 0 {
		c.ChunkBytes = int(min(int64(c.ChunkBytes), max(maxPayload-relayOverhead, 1024)))
	}
	return c, nil
}

// relayOverhead is what a relay message's headers may take of the
// server's max payload.
const relayOverhead = 4 << 10

// Sessions relays the requests of initialize-era sessions (protocol
// 2025-11-25 and 2025-06-18, with an Mcp-Session-Id) between the
// instances of a server, so that a session created through one instance
// can be used through any other behind a load balancer with no affinity.
//
// A session lives on the instance that created it, its owner; its id
// begins with the owner's name and a dot (give [Sessions.IDPrefix] to
// streamablehttp.SessionConfig.IDPrefix). [Sessions.Middleware] wraps the
// instance's handler: a request naming a session of another instance is
// relayed whole to the owner over NATS request/reply, on the subject
// <name>.sessions.<instance> (see [WithName]), and the owner's answer
// (a JSON response, an event stream, a GET stream, 202 or 204) comes back
// in chunks of SessionsConfig.ChunkBytes, a window of them in flight.
// The owner serves the relayed request through the same handler chain
// as its own requests, with the client's headers (Authorization
// included), host and address: authentication, the transport's checks,
// principal binding and expiry happen there, exactly as in one process.
//
// Failures: an owner that is gone (stopped, crashed, cut off from NATS)
// or does not take the relay in SessionsConfig.OpenTimeout gives 404,
// as for any unknown session, and the client starts a new one; a relay
// beyond SessionsConfig.MaxRelays gives 503; a relay on which nothing is
// heard for SessionsConfig.StallTimeout gives 504, or is cut off once the
// response has begun. A request body larger than the NATS server's max
// payload less 4 KiB gets 413.
type Sessions struct {
	nc       *nats.Conn
	cfg      SessionsConfig
	instance string
	subject  string // <name>.sessions.
	logger   *slog.Logger

	next atomic.Pointer[http.Handler]

	relaying chan struct{} // a slot per relay this instance sends
	owning   chan struct{} // a slot per relay this instance serves

	sub      *nats.Subscription
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex // guards closed, and wg.Add against Close's Wait
	closed   bool
	closeErr error
	once     sync.Once
}

// NewSessions starts serving, under the name instance (unique among the
// server's instances: its host name, a pod name; 1 to 64 letters, digits,
// '-' or '_'), the relays the other instances send to the sessions this
// one owns. ctx bounds the wait for the NATS server to confirm the
// subscription (SessionsConfig.OpenTimeout when it has no deadline). Close it when the instance stops, before its listener, so
// that the others answer 404 for its sessions at once.
func NewSessions(ctx context.Context, nc *nats.Conn, instance string, cfg SessionsConfig, opts ...Option) (*Sessions, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if !validName.MatchString(instance) {
		return nil, fmt.Errorf("backplane: NewSessions: instance %q is not 1 to 64 letters, digits, '-' or '_'", instance)
	}
	if !c.mayStartLocal(nc) {
		if err := checkConn(nc); err != nil {
			return nil, err
		}
	}
	if cfg, err = cfg.withDefaults(nc.MaxPayload()); err != nil {
		return nil, err
	}
	s := &Sessions{
		nc:       nc,
		cfg:      cfg,
		instance: instance,
		subject:  c.name + ".sessions.",
		logger:   c.logger,
		relaying: make(chan struct{}, cfg.MaxRelays),
		owning:   make(chan struct{}, cfg.MaxRelays),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.sub, err = nc.Subscribe(s.subject+instance, s.serveRelay)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrUnavailable, s.subject+instance, err)
	}
	if nc.IsConnected() {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, cfg.OpenTimeout)
			defer cancel()
		}
		if err := nc.FlushWithContext(ctx); err != nil {
			_ = s.sub.Unsubscribe()
			s.cancel()
			return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrUnavailable, s.subject+instance, err)
		}
	}
	return s, nil
}

// IDPrefix is the prefix of the session ids this instance issues: its
// name and a dot, such as "i0.". Give it to
// streamablehttp.SessionConfig.IDPrefix.
func (s *Sessions) IDPrefix() string { return s.instance + "." }

// Middleware wraps next, the instance's MCP endpoint (a
// streamablehttp.Handler, or the native listener's handler through
// streamablehttp.WithHTTPMiddleware, given before any authentication
// middleware so that the owner authenticates relayed requests). Requests
// naming a session of another instance are relayed to it; all others,
// and the relays this instance serves, go to next. Call it once: the
// last next given serves the relays.
func (s *Sessions) Middleware(next http.Handler) http.Handler {
	s.next.Store(&next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if owner, ok := s.ownerOf(r.Header); ok && owner != s.instance {
			s.relay(w, r, owner)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownerOf returns the instance named by the one Mcp-Session-Id of a
// request, when it has the form <instance>.<rest>.
func (s *Sessions) ownerOf(h http.Header) (string, bool) {
	vs := h["Mcp-Session-Id"]
	if len(vs) != 1 {
		return "", false
	}
	owner, _, ok := strings.Cut(strings.TrimSpace(vs[0]), ".")
	if !ok || !validName.MatchString(owner) {
		return "", false
	}
	return owner, true
}

// Close stops serving relays: relays this instance serves end (their
// requests are cancelled), and from then on the other instances answer
// 404 for its sessions. Relays this instance sends end with their HTTP
// requests. Close waits for the relays it served to end; it is
// idempotent.
func (s *Sessions) Close() error {
	s.once.Do(func() {
		s.closeErr = s.sub.Unsubscribe()
		if errors.Is(s.closeErr, nats.ErrConnectionClosed) || errors.Is(s.closeErr, nats.ErrBadSubscription) {
			s.closeErr = nil
		}
		s.cancel()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s.closeErr
}
