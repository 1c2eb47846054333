package main

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
)

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
	c, err := startChild(b.argv, false, b.logger)
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, -32603, "the stdio server could not be started: "+err.Error())
		return
	}
	s := &session{id: newSessionID(), child: c, ended: make(chan struct{})}
	c.unrouted = s.push
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.retire(c)
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
	b.retire(s.child)
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
