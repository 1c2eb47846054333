package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
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
	// front, when set, applies the library's HTTP rules to stateless
	// requests (see front).
	front *front

	retiring sync.WaitGroup // stdio servers being closed in the background

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
	b.retiring.Wait()
}

// retire closes a stdio server the bridge no longer uses: in the
// background while the bridge runs (close waits for it), at once when
// the bridge is closing.
func (b *bridge) retire(c *child) {
	b.mu.Lock()
	closed := b.closed
	if !closed {
		b.retiring.Add(1)
	}
	b.mu.Unlock()
	if closed {
		c.close(context.Background())
		return
	}
	go func() {
		defer b.retiring.Done()
		c.close(context.Background())
	}()
}
