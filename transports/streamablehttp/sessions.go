package streamablehttp

// The initialize-era session store: WithSessions and the sessions'
// lifetimes.

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
)

// The defaults of SessionConfig, stated in its field comments.
const (
	defaultSessionIdleTimeout = 10 * time.Minute
	defaultMaxSessions        = 1024
)

// SessionConfig configures the sessions initialize-era clients
// (2025-11-25, 2025-06-18) get when [WithSessions] turns them on. A zero
// field takes its default.
type SessionConfig struct {
	// IdleTimeout ends a session that has had no request in flight and
	// no GET stream open for this long (default 10 minutes).
	IdleTimeout time.Duration
	// MaxSessions bounds the live sessions (default 1,024); an initialize
	// beyond it gets 503.
	MaxSessions int
	// ReplayEvents bounds the events a session keeps so that a client
	// whose event stream dropped can reconnect with Last-Event-ID and get
	// what it missed (default 256). Beyond it the oldest are dropped, and
	// a client that reconnects after them is told they were lost.
	ReplayEvents int
	// ReplayBytes bounds the bytes of those events (default 1 MiB).
	ReplayBytes int
	// RetryDelay is the reconnection delay a 2025-11-25 event stream
	// announces (the retry field of its first, priming, event; default
	// 1 s).
	RetryDelay time.Duration
	// BindPrincipal makes a session answer only requests whose principal
	// is the one of the request that created it; any other gets 404, as
	// for an unknown session. Two principals of the same type that
	// implement dispatch.IdentifiedPrincipal are the same when their
	// PrincipalID is (so a refreshed token's new principal keeps the
	// session); other principals must be equal (==), and must then be
	// comparable values (strings, pointers, structs of those): a
	// principal that is not comparable never matches.
	BindPrincipal bool
	// IDPrefix begins every session id this handler issues (default
	// none): up to 64 visible ASCII characters (0x21 to 0x7E) followed by
	// the 43 random ones. Several instances behind one load balancer give
	// each its own prefix, such as "i0.", so that an http.Handler in
	// front of this one knows, from the Mcp-Session-Id alone, which
	// instance holds the session: an id with this handler's prefix is
	// local, any other it may relay to the owner (the backplane module's
	// Sessions does). Only this handler's sessions are ever found here.
	IDPrefix string
}

// WithSessions turns on sessions for initialize-era clients. A successful
// initialize then answers with an Mcp-Session-Id (43 characters of
// base64url from 32 random bytes), which the client sends with every
// later request: the session keeps the negotiated version, the client's
// capabilities and the log level it set, carries server-to-client
// requests, and serves one GET event stream for notifications that answer
// no request. DELETE ends a session; a request naming an unknown or ended
// session gets 404, and an initialize-era request without the header 400,
// except a ping, which is answered without a session (the 2025 lifecycle
// allows one before the initialize response, so before the client has
// its session id).
// Sessions idle for SessionConfig.IdleTimeout end by themselves.
//
// Without this option (the default, as for a 2026-07-28-only server) no
// session id is issued, GET and DELETE get 405, and initialize-era
// clients are served without a session: no logging/setLevel and no
// server-to-client requests. 2026-07-28 requests never use sessions.
func WithSessions(cfg SessionConfig) Option {
	return option{"WithSessions", func(o *options) error {
		if cfg.IdleTimeout < 0 || cfg.MaxSessions < 0 || cfg.ReplayEvents < 0 || cfg.ReplayBytes < 0 || cfg.RetryDelay < 0 {
			return errors.New("session limits must not be negative")
		}
		if !validIDPrefix(cfg.IDPrefix) {
			return errors.New("session id prefix must be at most 64 visible ASCII characters")
		}
		if cfg.ReplayEvents == 0 {
			cfg.ReplayEvents = 256
		}
		if cfg.ReplayBytes == 0 {
			cfg.ReplayBytes = 1 << 20
		}
		if cfg.RetryDelay == 0 {
			cfg.RetryDelay = time.Second
		}
		if cfg.IdleTimeout == 0 {
			cfg.IdleTimeout = defaultSessionIdleTimeout
		}
		if cfg.MaxSessions == 0 {
			cfg.MaxSessions = defaultMaxSessions
		}
		o.sessions = &cfg
		return nil
	}}
}

// maxIDPrefixBytes bounds SessionConfig.IDPrefix, so that an id stays
// within maxSessionIDBytes.
const maxIDPrefixBytes = 64

// validIDPrefix reports whether p may begin a session id.
func validIDPrefix(p string) bool {
	if len(p) > maxIDPrefixBytes {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x21 || p[i] > 0x7e {
			return false
		}
	}
	return true
}

// sessionStore holds the live sessions of a Handler.
type sessionStore struct {
	cfg SessionConfig

	mu       sync.Mutex
	byID     map[string]*httpSession
	reserved int // initialize requests admitted but not yet answered
	closed   bool
}

// httpSession is one issued session. Every field but the constants is
// guarded by the store's mutex.
type httpSession struct {
	store     *sessionStore
	id        string
	sess      *dispatch.Session
	principal any

	users    int // requests in flight and the GET stream: not idle while > 0
	idle     *time.Timer
	stream   *Prepared                // the open GET stream, or nil
	inflight map[jsonrpc.ID]*Prepared // requests in flight, for notifications/cancelled
	ended    bool
	endCh    chan struct{} // closed when the session ends
	// wake holds one signal that the session may have a change
	// notification for its GET stream.
	wake chan struct{}
	// log keeps the session's recent events for replay (replay.go).
	log *eventLog
}

func newSessionStore(cfg SessionConfig) *sessionStore {
	return &sessionStore{cfg: cfg, byID: map[string]*httpSession{}}
}

var errSessionsFull = errors.New("streamablehttp: session limit reached")

// reserve takes a place for a session an initialize may create.
func (st *sessionStore) reserve() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || len(st.byID)+st.reserved >= st.cfg.MaxSessions {
		return errSessionsFull
	}
	st.reserved++
	return nil
}

// unreserve gives back a place reserve took.
func (st *sessionStore) unreserve() {
	st.mu.Lock()
	st.reserved--
	st.mu.Unlock()
}

// register issues an id for a session whose initialize succeeded, taking
// the place reserve took. It fails only when the store has closed.
func (st *sessionStore) register(sess *dispatch.Session, principal any) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		st.unreserve()
		return "", err
	}
	hs := &httpSession{store: st, id: st.cfg.IDPrefix + base64.RawURLEncoding.EncodeToString(b[:]), sess: sess, principal: principal,
		endCh: make(chan struct{}), wake: make(chan struct{}, 1), log: newEventLog(st.cfg.ReplayEvents, st.cfg.ReplayBytes)}
	sess.SetWake(func() {
		select {
		case hs.wake <- struct{}{}:
		default:
		}
	})
	st.mu.Lock()
	defer st.mu.Unlock()
	st.reserved--
	if st.closed {
		sess.Close()
		return "", errSessionsFull
	}
	st.byID[hs.id] = hs
	hs.idle = time.AfterFunc(st.cfg.IdleTimeout, func() { st.expire(hs) })
	return hs.id, nil
}

// acquire finds the session named id for a request with principal and
// counts the request as a user of it until release. It returns nil for an
// unknown or ended session, or one bound to another principal.
func (st *sessionStore) acquire(id string, principal any) *httpSession {
	st.mu.Lock()
	defer st.mu.Unlock()
	hs := st.byID[id]
	if hs == nil || st.cfg.BindPrincipal && !samePrincipal(hs.principal, principal) {
		return nil
	}
	hs.users++
	hs.idle.Stop()
	return hs
}

// release ends a use acquire counted; the idle clock starts when the last
// one ends.
func (st *sessionStore) release(hs *httpSession) {
	st.mu.Lock()
	defer st.mu.Unlock()
	hs.users--
	if hs.users == 0 && !hs.ended {
		hs.idle.Reset(st.cfg.IdleTimeout)
	}
}

// expire ends a session whose idle timer fired, unless it was used since.
func (st *sessionStore) expire(hs *httpSession) {
	st.mu.Lock()
	if hs.users > 0 || hs.ended {
		st.mu.Unlock()
		return
	}
	st.endLocked(hs)
	st.mu.Unlock()
	hs.sess.Close()
}

// end ends a session now (DELETE): later requests naming it get 404, its
// GET stream ends, and server-to-client requests waiting on it fail.
func (st *sessionStore) end(hs *httpSession) {
	st.mu.Lock()
	st.endLocked(hs)
	st.mu.Unlock()
	hs.sess.Close()
}

func (st *sessionStore) endLocked(hs *httpSession) {
	if hs.ended {
		return
	}
	hs.ended = true
	hs.idle.Stop()
	delete(st.byID, hs.id)
	close(hs.endCh)
}

// closeAll ends every session and refuses new ones (the handler closes).
func (st *sessionStore) closeAll() {
	st.mu.Lock()
	st.closed = true
	var ended []*httpSession
	for _, hs := range st.byID {
		st.endLocked(hs)
		ended = append(ended, hs)
	}
	st.mu.Unlock()
	for _, hs := range ended {
		hs.sess.Close()
	}
}

// live returns the number of live sessions.
func (st *sessionStore) live() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.byID)
}

var errStreamOpen = errors.New("streamablehttp: the session already has a GET stream")

// attach makes p the session's GET stream. resume is the stream number
// p resumes (0 for a new stream): a client reconnecting to the GET stream
// it had takes its place, once the old one, whose connection may not have
// been seen to drop yet, has stopped (at most timeout), so that nothing is
// sent on both.
func (st *sessionStore) attach(hs *httpSession, p *Prepared, resume uint64, timeout time.Duration) error {
	st.mu.Lock()
	old := hs.stream
	if old != nil && (resume == 0 || old.getStream != resume) {
		st.mu.Unlock()
		return errStreamOpen
	}
	if old == nil {
		hs.stream = p
		st.mu.Unlock()
		return nil
	}
	st.mu.Unlock()
	old.kickOnce.Do(func() { close(old.kick) })
	select {
	case <-old.gone:
	case <-time.After(timeout):
		return errStreamOpen
	}
	return st.attach(hs, p, 0, timeout)
}

// detach forgets p as the session's GET stream.
func (st *sessionStore) detach(hs *httpSession, p *Prepared) {
	st.mu.Lock()
	if hs.stream == p {
		hs.stream = nil
	}
	st.mu.Unlock()
}

// track records a request in flight in its session, so that the client
// can cancel it by id.
func (st *sessionStore) track(hs *httpSession, p *Prepared) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if hs.inflight == nil {
		hs.inflight = map[jsonrpc.ID]*Prepared{}
	}
	hs.inflight[p.call.Info.ID] = p
}

// untrack forgets a request that ended.
func (st *sessionStore) untrack(hs *httpSession, p *Prepared) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if id := p.call.Info.ID; hs.inflight[id] == p {
		delete(hs.inflight, id)
	}
}

// cancel cancels the session's request in flight with id, if any: its
// work stops and it gets no response (an unknown or finished id is
// ignored, as notifications get no answer).
func (st *sessionStore) cancel(hs *httpSession, id jsonrpc.ID) {
	st.mu.Lock()
	p := hs.inflight[id]
	st.mu.Unlock()
	if p != nil {
		p.cancelOnce.Do(func() { close(p.clientCancel) })
	}
}

// samePrincipal compares two principals by their PrincipalID when they
// have one (see SessionConfig.BindPrincipal), otherwise with ==. A panic
// (== on values that are not comparable: a comparable type can still
// hold an incomparable value in an interface field; a PrincipalID on a
// nil receiver) means no match.
func samePrincipal(a, b any) (same bool) {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	if ia, ok := a.(dispatch.IdentifiedPrincipal); ok {
		if id := ia.PrincipalID(); id != "" { // mutation: session-matches-principal-identity
			return id == b.(dispatch.IdentifiedPrincipal).PrincipalID()
		}
	}
	return ta.Comparable() && a == b
}
