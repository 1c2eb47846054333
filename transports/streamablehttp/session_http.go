package streamablehttp

// Initialize-era sessions on the wire: the Mcp-Session-Id header, the GET
// stream, DELETE.

import (
	"net/http"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// The HTTP side of initialize-era sessions (WithSessions): which session a
// request names, the GET stream, DELETE, and issuing an id for a
// successful initialize.

// maxSessionIDBytes bounds the Mcp-Session-Id a client may send; ours are
// 43 bytes after SessionConfig.IDPrefix (at most maxIDPrefixBytes).
const maxSessionIDBytes = 128

// sessionIDOf returns the one Mcp-Session-Id of a request when it is
// visible ASCII (0x21 to 0x7E) and not too long.
func sessionIDOf(h http.Header) (string, bool) {
	vs := h[mcp.HeaderSessionID]
	if len(vs) != 1 {
		return "", false
	}
	id := strings.TrimSpace(vs[0])
	if id == "" || len(id) > maxSessionIDBytes {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return "", false
		}
	}
	return id, true
}

// sessionOf finds the session a POST names. Without sessions, or without
// the header, there is none; a malformed header is 400, and an unknown or
// ended session (or one bound to another principal) 404. A session found
// is held until the request ends.
func (h *Handler) sessionOf(req *Request, msg *jsonrpc.Message) (*httpSession, *Response) {
	if h.sessions == nil || req.Header[mcp.HeaderSessionID] == nil {
		return nil, nil
	}
	id, ok := sessionIDOf(req.Header)
	if !ok {
		return nil, h.refuse(req, instrumentation.RefusalSessionInvalid, http.StatusBadRequest, msg.ID, errSessionID)
	}
	hs := h.sessions.acquire(id, req.Principal)
	if hs == nil {
		return nil, h.refuse(req, instrumentation.RefusalSessionNotFound, http.StatusNotFound, msg.ID, errSessionNotFound)
	}
	return hs, nil
}

// prepareSessionMethod serves DELETE at once and prepares a GET stream.
// checkHead has let them through only with sessions on.
func (h *Handler) prepareSessionMethod(req *Request) (*Prepared, *Response) {
	if req.Header[mcp.HeaderSessionID] == nil {
		return nil, h.refuse(req, instrumentation.RefusalSessionInvalid, http.StatusBadRequest, jsonrpc.NullID, errSessionRequired)
	}
	id, ok := sessionIDOf(req.Header)
	if !ok {
		return nil, h.refuse(req, instrumentation.RefusalSessionInvalid, http.StatusBadRequest, jsonrpc.NullID, errSessionID)
	}
	if req.Method == http.MethodGet && !acceptsSSE(req.Header["Accept"]) {
		return nil, h.refuse(req, instrumentation.RefusalAccept, http.StatusNotAcceptable, jsonrpc.NullID, errAcceptSSE)
	}
	hs := h.sessions.acquire(id, req.Principal)
	if hs == nil {
		return nil, h.refuse(req, instrumentation.RefusalSessionNotFound, http.StatusNotFound, jsonrpc.NullID, errSessionNotFound)
	}
	if req.Method == http.MethodDelete {
		h.sessions.end(hs)
		h.sessions.release(hs)
		return nil, &Response{Status: http.StatusNoContent}
	}
	p := &Prepared{h: h, x: newExchange(), get: true, sess: hs, peer: req.Peer, kick: make(chan struct{}), gone: make(chan struct{})}
	var resume uint64
	if last := lastEventID(req.Header); last != "" {
		// A reconnection: resume the stream the id belongs to.
		p.lastEventID = last
		stream, seq, ok := parseEventID(last)
		if r := hs.log.since(stream, seq); ok && r.known {
			p.getStream, p.resumeFrom, p.resumePost = stream, seq, r.post
			if !r.post {
				resume = stream
			}
		} else {
			p.lostUnknown = true
		}
	}
	if p.getStream == 0 {
		p.getStream = hs.log.open(false, jsonrpc.NullID)
	}
	if !p.resumePost { // a resumed POST stream is not the session's GET stream
		if err := h.sessions.attach(hs, p, resume, h.o.limits.WriteTimeout); err != nil {
			h.sessions.release(hs)
			h.noteRefusal(req.Method, instrumentation.RefusalStreamOpen, http.StatusConflict, errStreamOpenRPC.Code, "", hs.id)
			return nil, errorResponse(http.StatusConflict, jsonrpc.NullID, errStreamOpenRPC)
		}
	}
	h.active.enter()
	return p, nil
}

// lastEventID returns the one Last-Event-ID of a request, or "".
func lastEventID(h http.Header) string {
	if vs := h["Last-Event-Id"]; len(vs) == 1 {
		return vs[0]
	}
	return ""
}

// executeGet opens a session's GET stream: an event stream of the
// notifications that answer no request, until the session ends, the
// handler drains, or the client goes away. Like a subscriptions/listen
// stream it runs no job, holds a slot of the subscription cap, and is a
// request actor with a subscription actor in the tree.
func (h *Handler) executeGet(p *Prepared) (*Response, *StreamResponse) {
	release, ok := h.exec.AcquireSubscription()
	if !ok {
		h.noteRefusal(http.MethodGet, instrumentation.RefusalSubscriptionLimit, http.StatusServiceUnavailable, errSubscriptionCap.Code, "", p.sess.id)
		p.finish()
		return errorResponse(http.StatusServiceUnavailable, jsonrpc.NullID, errSubscriptionCap), nil
	}
	p.release = release
	task, err := h.host.BeginStream(tree.StreamSpec{
		Method:   http.MethodGet,
		Peer:     p.peer,
		Describe: func() map[string]string { return map[string]string{"stream": "session"} },
		Release:  release,
	})
	if err != nil {
		h.noteRefusal(http.MethodGet, instrumentation.RefusalDraining, http.StatusServiceUnavailable, errShuttingDown.Code, "", p.sess.id)
		p.finish()
		return errorResponse(http.StatusServiceUnavailable, jsonrpc.NullID, errShuttingDown), nil
	}
	p.mu.Lock()
	p.task = task
	p.mu.Unlock()
	return nil, newStream(h, p, nil)
}

// issueSession issues an id for the session of a successful initialize
// and returns it ("" when there is none to issue).
func (h *Handler) issueSession(p *Prepared, r executor.Result) string {
	if p.newSess == nil || r.Status != executor.Completed {
		return ""
	}
	out, _ := r.Value.(dispatch.Outcome)
	if out.NegotiatedVersion == "" {
		return ""
	}
	sess := p.newSess
	p.newSess = nil
	id, err := h.sessions.register(sess, p.principal)
	if err != nil {
		return ""
	}
	return id
}

// issueOrDrop gives back the place of an initialize's session that was
// never issued (the initialize failed, or answered with an event stream,
// whose head was written before the outcome was known).
func (h *Handler) issueOrDrop(p *Prepared) {
	p.newSess.Close() // it may have joined the hub
	p.newSess = nil
	h.sessions.unreserve()
}
