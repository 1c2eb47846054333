package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

// keepAliveInterval is how long an event stream may stay silent before
// the bridge writes a keepalive comment: the library's own default
// (streamablehttp.Limits.KeepAlive).
const keepAliveInterval = 15 * time.Second

// bridge is the HTTP side: it relays each POST to a stdio server.
//
// Without sessions (2026-07-28, stateless) every request goes to one
// long-lived stdio server, as a real stdio client's requests do: the
// child multiplexes them (its own ids and progress tokens, routing by id,
// token, subscription id and log level; see child), so a list change one
// request makes reaches a listen stream another request holds.
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
	shared   *child // the stateless stdio server, started on first use
	sessByID map[string]*session
}

func newBridge(argv []string, sessions bool, path string, logger *slog.Logger) *bridge {
	return &bridge{argv: argv, sessions: sessions, path: path, logger: logger, sessByID: map[string]*session{}}
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

// relayStateless relays a request to the shared stdio server. A
// notification or a JSON-RPC response gets 202 and goes no further, as on
// the library's own stateless transport: 2026-07-28 defines none that a
// client sends over HTTP (closing the stream is how it cancels), and an id
// it names would mean nothing to a server whose ids are the bridge's.
func (b *bridge) relayStateless(w http.ResponseWriter, r *http.Request, body []byte, h *head) {
	if h.isNotification() || h.isResponse() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if h.Method == "initialize" && pathValue(h.Params, "_meta", mcp.MetaProtocolVersion) == nil {
		// An initialize-era initialize would turn the shared server into
		// one client's session.
		refuse(w, http.StatusBadRequest, -32600, "Invalid Request: this bridge serves stateless requests; run it with -sessions for initialize-era clients")
		return
	}
	c, err := b.sharedChild()
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, -32603, "the stdio server could not be started: "+err.Error())
		return
	}
	x, err := c.request(body, h)
	if err != nil {
		refuse(w, http.StatusBadGateway, -32603, "relaying to the stdio server: "+err.Error())
		return
	}
	b.relay(w, r, c, x, nil)
}

// relay writes x's messages: JSON when the response comes first, an event
// stream once anything precedes it (with a keepalive comment when the
// stream is quiet, as the library's transport writes). prepare, when set,
// runs before the first byte is written, with the response when it comes
// first (nil when a stream starts). relay returns the response, or nil
// when the client went away (the request is cancelled in the child) or
// the stream ended without one.
func (b *bridge) relay(w http.ResponseWriter, r *http.Request, c *child, x *exchange, prepare func(hdr http.Header, response []byte)) []byte {
	var sse *sseWriter
	var keepalive <-chan time.Time
	for {
		select {
		case it := <-x.items:
			if it.frame == nil { // ended by the server with no response
				if sse == nil {
					refuse(w, http.StatusInternalServerError, -32603, "the stdio server ended the request without answering")
				}
				return nil
			}
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
				t := time.NewTicker(keepAliveInterval)
				defer t.Stop()
				keepalive = t.C
			}
			if err := sse.event(it.frame); err != nil {
				c.cancel(x, "the client stopped reading")
				return nil
			}
			if it.final {
				return it.frame
			}
		case <-keepalive:
			if err := sse.comment("keepalive"); err != nil {
				c.cancel(x, "the client stopped reading")
				return nil
			}
		case <-x.gone: // cancelled by the child's reader: the client fell behind
			return nil
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
	var children []*child
	if b.shared != nil {
		children = append(children, b.shared)
	}
	sessions := make([]*session, 0, len(b.sessByID))
	for _, s := range b.sessByID {
		sessions = append(sessions, s)
	}
	b.shared, b.sessByID = nil, map[string]*session{}
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
