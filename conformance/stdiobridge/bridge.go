package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
)

// bridge is the HTTP side: it relays each POST to a stdio server.
//
// Without sessions (2026-07-28, stateless) it keeps a pool of stdio servers
// and gives each request one to itself for as long as it runs, so every
// notification a server writes belongs to exactly one request: the stdio
// transport writes request-scoped notifications (log messages) with
// nothing naming their request.
//
// With sessions (the initialize era) each initialize starts a stdio server
// for the session it opens (Mcp-Session-Id); the session's requests share
// it, its server-to-client requests and notifications travel on the stream
// of the request in flight (else on the session's GET stream), and DELETE
// ends it.
type bridge struct {
	argv     []string
	sessions bool
	path     string
	logger   *slog.Logger
	// rules, when set, applies the library's header rules to stateless
	// requests before they reach a stdio server (see headerRules).
	rules *headerRules
	// front, when set, applies the library's HTTP rules to stateless
	// requests (see front).
	front *front

	mu       sync.Mutex
	closed   bool
	idle     []*child
	all      map[*child]bool
	sessByID map[string]*session
}

func newBridge(argv []string, sessions bool, path string, logger *slog.Logger) *bridge {
	return &bridge{argv: argv, sessions: sessions, path: path, logger: logger, all: map[*child]bool{}, sessByID: map[string]*session{}}
}

func (b *bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if b.front != nil {
		b.serveStateless(w, r)
		return
	}
	if r.URL.Path != b.path {
		http.NotFound(w, r)
		return
	}
	if !originAllowed(r) {
		refuse(w, http.StatusForbidden, -32600, "Invalid Request: Origin not allowed")
		return
	}
	allow := "POST"
	if b.sessions {
		allow = "GET, POST, DELETE"
	}
	switch {
	case r.Method == http.MethodPost:
		b.post(w, r)
	case b.sessions && r.Method == http.MethodGet:
		b.listen(w, r)
	case b.sessions && r.Method == http.MethodDelete:
		b.deleteSession(w, r)
	default:
		w.Header().Set("Allow", allow)
		refuse(w, http.StatusMethodNotAllowed, -32600, "Invalid Request: method not allowed")
	}
}

// serveStateless checks a request with the library's HTTP rules, then
// relays it.
func (b *bridge) serveStateless(w http.ResponseWriter, r *http.Request) {
	body, err := readAllBounded(r.Body)
	if err != nil {
		refuse(w, http.StatusBadRequest, -32600, "Invalid Request: body could not be read")
		return
	}
	if resp := b.front.refusal(r, body); resp != nil {
		writeResponse(w, resp)
		return
	}
	var h head
	if json.Unmarshal(body, &h) != nil {
		h = head{} // forwarded verbatim: the stdio server answers it
	}
	b.relayStateless(w, r, body, &h)
}

func (b *bridge) post(w http.ResponseWriter, r *http.Request) {
	if !mediaOK(w, r) {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var h head
	if json.Unmarshal(body, &h) != nil {
		h = head{} // forwarded verbatim: the stdio server answers it
	}
	if b.sessions {
		b.postSession(w, r, body, &h)
		return
	}
	b.relayStateless(w, r, body, &h)
}

// relayStateless gives a request a stdio server of the pool to itself.
func (b *bridge) relayStateless(w http.ResponseWriter, r *http.Request, body []byte, h *head) {
	c, err := b.acquire()
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, -32603, "the stdio server could not be started: "+err.Error())
		return
	}
	if h.isNotification() || h.isResponse() {
		err := c.write(body)
		b.release(c, err == nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	x, err := c.request(body, h)
	if err != nil {
		b.release(c, false)
		refuse(w, http.StatusBadGateway, -32603, "relaying to the stdio server: "+err.Error())
		return
	}
	b.release(c, b.relay(w, r, c, x, nil) != nil)
}

// relay writes x's messages: JSON when the response comes first, an event
// stream once anything precedes it. prepare, when set, runs before the
// first byte is written, with the response when it comes first (nil when
// a stream starts). relay returns the response, or nil when the client
// went away and the request was cancelled.
func (b *bridge) relay(w http.ResponseWriter, r *http.Request, c *child, x *exchange, prepare func(hdr http.Header, response []byte)) []byte {
	var sse *sseWriter
	for {
		select {
		case it := <-x.items:
			if sse == nil && it.final {
				if prepare != nil {
					prepare(w.Header(), it.frame)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(statusFor(b.sessions, it.frame))
				_, _ = w.Write(it.frame)
				return it.frame
			}
			if sse == nil {
				if prepare != nil {
					prepare(w.Header(), nil)
				}
				sse = startSSE(w)
			}
			if err := sse.event(it.frame); err != nil {
				c.cancel(x, "the client stopped reading")
				return nil
			}
			if it.final {
				return it.frame
			}
		case <-r.Context().Done():
			c.cancel(x, "the client disconnected")
			return nil
		}
	}
}

// loadRules copies the stdio server's catalog for the header rules of a
// stateless bridge. Without it the header scenarios fail, so a failure is
// logged, not fatal.
func (b *bridge) loadRules() {
	c, err := b.acquire()
	if err != nil {
		b.logger.Warn("no header rules: the stdio server did not start", "error", err)
		return
	}
	rules, err := loadHeaderRules(c)
	b.release(c, err == nil)
	if err != nil {
		b.logger.Warn("no header rules: the stdio server's catalog could not be read", "error", err)
		return
	}
	f, err := newFront(rules, b.logger)
	if err != nil {
		b.logger.Warn("no HTTP front from the library", "error", err)
		return
	}
	b.rules, b.front = rules, f
}

// acquire returns an idle stdio server, or starts one.
func (b *bridge) acquire() (*child, error) {
	b.mu.Lock()
	for len(b.idle) > 0 {
		c := b.idle[len(b.idle)-1]
		b.idle = b.idle[:len(b.idle)-1]
		if c.alive() {
			b.mu.Unlock()
			return c, nil
		}
		delete(b.all, c)
	}
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errBridgeClosed
	}
	c, err := startChild(b.argv, b.logger)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		go c.close(context.Background())
		return nil, errBridgeClosed
	}
	b.all[c] = true
	return c, nil
}

// release returns c to the pool. A server whose request was cancelled may
// still be finishing it, so it is retired instead of reused.
func (b *bridge) release(c *child, reusable bool) {
	b.mu.Lock()
	if reusable && !b.closed && c.alive() && c.busy() == 0 {
		b.idle = append(b.idle, c)
		b.mu.Unlock()
		return
	}
	delete(b.all, c)
	b.mu.Unlock()
	go c.close(context.Background())
}

// close stops every stdio server and session; waits for them to exit.
func (b *bridge) close(ctx context.Context) {
	if b.front != nil {
		b.front.close()
	}
	b.mu.Lock()
	b.closed = true
	children := make([]*child, 0, len(b.all))
	for c := range b.all {
		children = append(children, c)
	}
	sessions := make([]*session, 0, len(b.sessByID))
	for _, s := range b.sessByID {
		sessions = append(sessions, s)
	}
	b.all, b.idle, b.sessByID = map[*child]bool{}, nil, map[string]*session{}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		s.end()
		children = append(children, s.child)
	}
	for _, c := range children {
		wg.Add(1)
		go func() { defer wg.Done(); c.close(ctx) }()
	}
	wg.Wait()
}

type bridgeError string

func (e bridgeError) Error() string { return string(e) }

const errBridgeClosed = bridgeError("the bridge is shutting down")

// session is one initialize-era session and its stdio server.
type session struct {
	id    string
	child *child

	mu      sync.Mutex
	stream  chan []byte // the open GET stream's queue, or nil
	backlog [][]byte    // messages waiting for a GET stream
	ended   chan struct{}
	endOnce sync.Once
}

// maxBacklog bounds the messages kept for a GET stream not yet open.
const maxBacklog = 256

func (s *session) end() { s.endOnce.Do(func() { close(s.ended) }) }

// push queues a message for the session's GET stream.
func (s *session) push(frame []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream != nil {
		select {
		case s.stream <- frame:
			return
		default:
		}
	}
	if len(s.backlog) < maxBacklog {
		s.backlog = append(s.backlog, frame)
	}
}

func newSessionID() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (b *bridge) session(r *http.Request) (*session, bool) {
	id := r.Header.Get("Mcp-Session-Id")
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sessByID[id]
	return s, ok
}

func (b *bridge) postSession(w http.ResponseWriter, r *http.Request, body []byte, h *head) {
	if r.Header.Get("Mcp-Session-Id") == "" {
		if h.Method != "initialize" || !h.isRequest() {
			refuse(w, http.StatusBadRequest, -32600, "Bad Request: Mcp-Session-Id header is required")
			return
		}
		b.initialize(w, r, body, h)
		return
	}
	s, ok := b.session(r)
	if !ok {
		refuse(w, http.StatusNotFound, -32001, "Session not found")
		return
	}
	if !h.isRequest() && (h.isNotification() || h.isResponse()) {
		if h.Method == "notifications/cancelled" {
			body = b.remapCancel(s.child, body, h)
		}
		if err := s.child.write(body); err != nil {
			refuse(w, http.StatusNotFound, -32001, "Session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	x, err := s.child.request(body, h)
	if err != nil {
		refuse(w, http.StatusNotFound, -32001, "Session ended")
		return
	}
	b.relay(w, r, s.child, x, nil)
}

// remapCancel points a client's notifications/cancelled at the bridge's id
// for that request.
func (b *bridge) remapCancel(c *child, body []byte, h *head) []byte {
	reqID := memberValue(h.Params, "requestId")
	if reqID == nil {
		return body
	}
	id, ok := c.childIDFor(reqID)
	if !ok {
		return body
	}
	params, ok := replaceMember(h.Params, "requestId", []byte(strconv.FormatInt(id, 10)))
	if !ok {
		return body
	}
	if out, ok := replaceMember(body, "params", params); ok {
		return out
	}
	return body
}

func (b *bridge) initialize(w http.ResponseWriter, r *http.Request, body []byte, h *head) {
	c, err := startChild(b.argv, b.logger)
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, -32603, "the stdio server could not be started: "+err.Error())
		return
	}
	s := &session{id: newSessionID(), child: c, ended: make(chan struct{})}
	c.unrouted = s.push
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		go c.close(context.Background())
		refuse(w, http.StatusServiceUnavailable, -32603, errBridgeClosed.Error())
		return
	}
	b.sessByID[s.id] = s
	b.mu.Unlock()
	x, err := c.request(body, h)
	if err != nil {
		b.dropSession(s)
		refuse(w, http.StatusBadGateway, -32603, "relaying to the stdio server: "+err.Error())
		return
	}
	// A failed initialize opens no session.
	response := b.relay(w, r, c, x, func(hdr http.Header, response []byte) {
		if response == nil || errorCode(response) == 0 {
			hdr.Set("Mcp-Session-Id", s.id)
		}
	})
	if response == nil || errorCode(response) != 0 {
		b.dropSession(s)
	}
}

func (b *bridge) dropSession(s *session) {
	b.mu.Lock()
	delete(b.sessByID, s.id)
	b.mu.Unlock()
	s.end()
	go s.child.close(context.Background())
}

// listen serves a session's GET stream: messages of the stdio server that
// belong to no request in flight.
func (b *bridge) listen(w http.ResponseWriter, r *http.Request) {
	s, ok := b.session(r)
	if !ok {
		status := http.StatusNotFound
		if r.Header.Get("Mcp-Session-Id") == "" {
			status = http.StatusBadRequest
		}
		refuse(w, status, -32001, "Session not found")
		return
	}
	q := make(chan []byte, maxBacklog)
	s.mu.Lock()
	if s.stream != nil {
		s.mu.Unlock()
		refuse(w, http.StatusConflict, -32600, "Invalid Request: the session already has a GET stream")
		return
	}
	for _, f := range s.backlog {
		q <- f
	}
	s.backlog, s.stream = nil, q
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.stream = nil
		s.mu.Unlock()
	}()
	sse := startSSE(w)
	for {
		select {
		case f := <-q:
			if sse.event(f) != nil {
				return
			}
		case <-s.ended:
			return
		case <-s.child.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (b *bridge) deleteSession(w http.ResponseWriter, r *http.Request) {
	s, ok := b.session(r)
	if !ok {
		refuse(w, http.StatusNotFound, -32001, "Session not found")
		return
	}
	b.dropSession(s)
	w.WriteHeader(http.StatusOK)
}
