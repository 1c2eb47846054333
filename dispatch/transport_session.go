// Transport-author API: the initialize-era Session a transport keeps per
// connection or HTTP session and passes with every message.

package dispatch

import (
	"maps"
	"sync"

	"github.com/snodo-go/snodo/mcp"
)

// Session is the state an initialize-era client (2025-11-25, 2025-06-18)
// negotiates once and every later request relies on: the protocol version
// and client capabilities from initialize, whether the client has sent
// notifications/initialized, and the log level it chose with
// logging/setLevel.
//
// It belongs to the connection, not to the Runtime: a byte-stream
// transport (stdio) creates one per connection, the HTTP transport one per
// session it issues, and each passes it in [Request.Session] with every
// message. The initialize-era dialects read and update it; 2026-07-28
// requests are stateless and never touch it. Its methods are safe for
// concurrent use, and on a nil *Session they return zero values.
type Session struct {
	mu          sync.Mutex
	version     string
	caps        mcp.ClientCapabilities
	info        *mcp.Implementation
	initialized bool
	logLevel    string

	// Change notifications (session_hub.go).
	listener SessionSubscription
	subs     map[string]struct{} // resources/subscribe URIs
	wakeFn   func()

	// Server-to-client requests (session_requests.go).
	lastID  int64
	pending map[int64]chan clientReply
	closed  bool
	done    chan struct{} // closed by Close; made with pending
}

// NewSession returns a session on which nothing has been negotiated yet.
func NewSession() *Session { return &Session{} }

// ProtocolVersion returns the version a successful initialize negotiated,
// or "" before that.
func (s *Session) ProtocolVersion() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// clientCapabilities returns the capabilities the client declared in
// initialize. The maps inside are shared and must not be changed.
func (s *Session) clientCapabilities() mcp.ClientCapabilities {
	if s == nil {
		return mcp.ClientCapabilities{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// clientInfo returns a copy of the client's self-description from
// initialize, or nil. It is unverified.
func (s *Session) clientInfo() *mcp.Implementation {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.info == nil {
		return nil
	}
	c := *s.info
	return &c
}

// isInitialized reports whether the client has sent
// notifications/initialized after a successful initialize.
func (s *Session) isInitialized() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// currentLogLevel returns the level the client set with logging/setLevel, or ""
// when it set none (no log messages are sent then).
func (s *Session) currentLogLevel() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

// begin records a completed handshake. A later initialize would replace
// it; the built-in dialects refuse one.
func (s *Session) begin(h handshake) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = h.ProtocolVersion
	s.caps = h.ClientCapabilities
	s.caps.Experimental = maps.Clone(h.ClientCapabilities.Experimental)
	s.caps.Extensions = maps.Clone(h.ClientCapabilities.Extensions)
	if h.ClientInfo != nil {
		c := *h.ClientInfo
		s.info = &c
	} else {
		s.info = nil
	}
	s.initialized = false
	s.logLevel = ""
}

// markInitialized records notifications/initialized; it means nothing
// before a handshake.
func (s *Session) markInitialized() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version != "" {
		s.initialized = true
	}
}

func (s *Session) setLogLevel(level string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = level
}

// handshake is what an initialize handshake settles for a session.
type handshake struct {
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string
	// clientCapabilities are those the client declared.
	ClientCapabilities mcp.ClientCapabilities
	// clientInfo is the client's self-description, when it sent one.
	ClientInfo *mcp.Implementation
}

// handshakeResult is implemented by the result of an operation that
// completes an initialize handshake, in this package's dialects or in one
// plugged in with withDialect. When such a result has been shaped and
// encoded, [Runtime.Execute] sets [Outcome.NegotiatedVersion] and records
// the handshake in the request's [Session], if it has one, before it
// returns the response: a message the client sends after reading the
// response is served under the negotiated version.
type handshakeResult interface {
	Handshake() handshake
}
