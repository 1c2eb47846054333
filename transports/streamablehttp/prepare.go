package streamablehttp

// Prepare: the transport's head and body rules and the dispatch admission,
// before anything runs.

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/mcpwire"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Prepared is a request that passed every check and was admitted by the
// Runtime, ready for [Handler.Execute]. No application code has run yet.
// A Prepared that will not be executed must be discarded, which returns
// what it holds (a subscription slot).
type Prepared struct {
	h       *Handler
	call    *dispatch.Call
	x       *exchange
	peer    string
	release func() // subscription slot, for subscriptions/listen
	stream  bool   // subscriptions/listen: an event stream from the start, no job, no deadline

	// Sessions (initialize-era clients, with WithSessions).
	sess      *httpSession      // the session the request named, held until finish
	newSess   *dispatch.Session // an initialize's session, issued if it succeeds
	principal any               // the principal a new session is bound to
	get       bool              // the session's GET stream, or a POST stream resumed on a GET
	// Replay (replay.go): the stream's number in the session's log, and
	// what a GET with Last-Event-ID resumes.
	getStream   uint64        // the GET stream's number (0 until it starts, or for a new one)
	resumeFrom  uint64        // resume after this seq of getStream
	resumePost  bool          // getStream is a POST stream: follow it to its response, then end
	lastEventID string        // the Last-Event-ID the client sent ("" for none)
	lostUnknown bool          // Last-Event-ID names no stream the log still has
	kick        chan struct{} // closed to stop the GET stream for its resumption
	kickOnce    sync.Once
	gone        chan struct{} // closed when the GET stream has ended
	// clientCancel is closed when the client cancels the request with
	// notifications/cancelled in its session (nil outside a session).
	clientCancel chan struct{}
	cancelOnce   sync.Once

	mu       sync.Mutex
	executed bool
	finished bool
	task     tree.Exchange
}

// Method returns the JSON-RPC method of the request ("GET" for a
// session's event stream).
func (p *Prepared) Method() string {
	if p.call == nil {
		return http.MethodGet
	}
	return p.call.Info.Method
}

// Discard gives up a prepared request that will not be executed.
func (p *Prepared) Discard() {
	p.mu.Lock()
	executed := p.executed
	p.executed = true
	p.mu.Unlock()
	if !executed {
		p.finish()
	}
}

// finish ends the exchange once: its request actor stops, its
// subscription slot returns, and the handler stops counting it.
func (p *Prepared) finish() {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finished = true
	task := p.task
	p.mu.Unlock()
	if task != nil {
		task.End()
	} else if p.release != nil {
		p.release()
	}
	p.x.end()
	if p.sess != nil {
		if p.get {
			p.h.sessions.detach(p.sess, p)
			if p.gone != nil {
				close(p.gone)
			}
		} else {
			p.h.sessions.untrack(p.sess, p)
		}
		p.h.sessions.release(p.sess)
	}
	if p.newSess != nil {
		p.h.issueOrDrop(p)
	}
	p.h.active.leave()
}

// Prepare checks req with the transport's rules, reads its body, decodes
// it and admits it, without running any application code. It returns
// either a Prepared to pass to [Handler.Execute], or the finished Response
// to send (a refusal, or 202 for a notification or a JSON-RPC response).
func (h *Handler) Prepare(req *Request) (*Prepared, *Response) {
	if resp := h.checkHead(req); resp != nil {
		return nil, resp
	}
	if req.Method != http.MethodPost {
		return h.prepareSessionMethod(req)
	}
	body, resp := h.readBody(req)
	if resp != nil {
		return nil, resp
	}
	return h.admit(req, body)
}

// checkHead applies the rules that need only the request head, in order.
func (h *Handler) checkHead(req *Request) *Response {
	switch {
	case h.path != "" && req.Path != h.path:
		h.noteRefusal(req.Method, instrumentation.RefusalPath, http.StatusNotFound, 0, "", "")
		return &Response{Status: http.StatusNotFound, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found\n")}
	case req.Method != http.MethodPost && !(h.sessions != nil && (req.Method == http.MethodGet || req.Method == http.MethodDelete)):
		r := h.refuse(req, instrumentation.RefusalMethodNotAllowed, http.StatusMethodNotAllowed, jsonrpc.NullID, errMethodNotAllowed)
		r.Header = http.Header{"Allow": allowPost}
		if h.sessions != nil {
			r.Header["Allow"] = allowSessions
		}
		return r
	case h.draining.Load():
		return h.refuse(req, instrumentation.RefusalDraining, http.StatusServiceUnavailable, jsonrpc.NullID, errShuttingDown)
	case !originAllowed(h.originRules, req.Header["Origin"]):
		return h.refuse(req, instrumentation.RefusalOrigin, http.StatusForbidden, jsonrpc.NullID, errOrigin)
	case h.hostRules != nil && !hostAllowed(h.hostRules, hostOf(req)):
		return h.refuse(req, instrumentation.RefusalHost, http.StatusForbidden, jsonrpc.NullID, errHost)
	case req.Method != http.MethodPost:
		return nil // GET and DELETE have their own rules
	case !contentTypeOK(req.Header["Content-Type"]):
		return h.refuse(req, instrumentation.RefusalContentType, http.StatusUnsupportedMediaType, jsonrpc.NullID, errContentType)
	case !acceptOK(req.Header["Accept"]):
		return h.refuse(req, instrumentation.RefusalAccept, http.StatusNotAcceptable, jsonrpc.NullID, errAccept)
	case len(req.TransferEncoding) > 0 || req.Header["Transfer-Encoding"] != nil || req.ContentLength < 0:
		return h.refuse(req, instrumentation.RefusalLengthRequired, http.StatusLengthRequired, jsonrpc.NullID, errLength)
	case req.ContentLength > h.o.limits.MaxBodyBytes:
		return h.refuse(req, instrumentation.RefusalBodyTooLarge, http.StatusRequestEntityTooLarge, jsonrpc.NullID, errTooLarge)
	}
	return nil
}

func hostOf(req *Request) string {
	if req.Host != "" {
		return req.Host
	}
	return req.Header.Get("Host")
}

// errBodyDeadline is a body read past the body timeout.
var errBodyDeadline = errors.New("streamablehttp: body timeout")

// readBody reads exactly the declared length, then expects the end of the
// body: a body longer than declared is refused.
func (h *Handler) readBody(req *Request) ([]byte, *Response) {
	body := make([]byte, req.ContentLength)
	r := req.Body
	if r == nil {
		r = http.NoBody
	}
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, h.bodyError(req, err)
	}
	// Reading the end also lets net/http notice a client disconnect
	// from here on.
	var one [1]byte
	switch _, err := io.ReadFull(r, one[:]); {
	case err == nil:
		return nil, h.refuse(req, instrumentation.RefusalBodyTooLarge, http.StatusRequestEntityTooLarge, jsonrpc.NullID, errTooLarge)
	case err != io.EOF:
		return nil, h.bodyError(req, err)
	}
	return body, nil
}

func (h *Handler) bodyError(req *Request, err error) *Response {
	var ne net.Error
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errBodyDeadline), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return h.refuse(req, instrumentation.RefusalBodyTimeout, http.StatusRequestTimeout, jsonrpc.NullID, errBodyTimeout)
	case errors.As(err, &mbe):
		return h.refuse(req, instrumentation.RefusalBodyTooLarge, http.StatusRequestEntityTooLarge, jsonrpc.NullID, errTooLarge)
	}
	return h.refuse(req, instrumentation.RefusalMalformed, http.StatusBadRequest, jsonrpc.NullID, errBodyRead)
}

// admit decodes the body and admits it through the Runtime.
func (h *Handler) admit(req *Request, body []byte) (*Prepared, *Response) {
	msg, err := jsonrpc.Decode(body)
	if err != nil {
		var de *jsonrpc.DecodeError
		if !errors.As(err, &de) {
			return nil, h.refuse(req, instrumentation.RefusalMalformed, http.StatusBadRequest, jsonrpc.NullID, errBodyRead)
		}
		// A malformed notification gets no JSON-RPC answer, but HTTP
		// needs a status: 400 with the id-less error.
		return nil, h.refuse(req, instrumentation.RefusalMalformed, http.StatusBadRequest, de.ID, de.Err)
	}
	hs, resp := h.sessionOf(req, msg)
	if resp != nil {
		return nil, resp
	}
	dreq := &dispatch.Request{
		Message:   msg,
		Transport: dispatch.TransportHTTP,
		Header:    req.Header,
		Principal: req.Principal,
	}
	if hs != nil {
		dreq.Session = hs.sess
	}
	if msg.Kind != jsonrpc.KindRequest {
		// Notifications and JSON-RPC responses get 202. 2026-07-28
		// defines none a client sends over HTTP; in a session,
		// notifications/initialized reaches the session and a response
		// goes to the server-to-client request waiting for it (one that
		// matches nothing is ignored).
		if hs != nil {
			switch {
			case msg.Kind == jsonrpc.KindResponse:
				hs.sess.Deliver(msg)
			case msg.Method == "notifications/cancelled":
				// In the initialize era a disconnect is not a
				// cancellation: the client says so.
				if id, ok := mcpwire.CancelledRequestID(msg.Params); ok {
					h.sessions.cancel(hs, id)
				}
			default:
				h.rt.Admit(dreq)
			}
			h.sessions.release(hs)
		}
		return nil, &Response{Status: http.StatusAccepted}
	}
	var newSess *dispatch.Session
	if hs == nil && h.sessions != nil && msg.Method == "initialize" {
		if err := h.sessions.reserve(); err != nil {
			return nil, h.refuse(req, instrumentation.RefusalSessionLimit, http.StatusServiceUnavailable, msg.ID, errSessionCap)
		}
		newSess = dispatch.NewSession()
		dreq.Session = newSess
	}
	x := newExchange()
	dreq.Notifier = x
	call, out := h.rt.Admit(dreq)
	if call == nil || h.sessions != nil && hs == nil && newSess == nil && call.SessionEra() && !pingBeforeSession(call) {
		if hs != nil {
			h.sessions.release(hs)
		}
		if newSess != nil {
			h.sessions.unreserve()
		}
		if call != nil {
			// An initialize-era request outside a session, when sessions
			// are on.
			return nil, h.refuse(req, instrumentation.RefusalSessionInvalid, http.StatusBadRequest, msg.ID, errSessionRequired)
		}
		if out.Frame == nil {
			return nil, &Response{Status: http.StatusAccepted}
		}
		return nil, &Response{Status: refusalStatus(out), ContentType: mediaJSON, Body: out.Frame}
	}
	p := &Prepared{h: h, call: call, x: x, peer: req.Peer, sess: hs, newSess: newSess, principal: req.Principal}
	if hs != nil {
		p.clientCancel = make(chan struct{})
		x.resumable = true // its event stream has ids and can be resumed
		if hs.sess.ProtocolVersion() == mcp.Version20251125 {
			x.setPollable()
		}
		h.sessions.track(hs, p)
	}
	if call.Info.Method == dispatch.MethodListen {
		release, ok := h.exec.AcquireSubscription()
		if !ok {
			if hs != nil {
				h.sessions.untrack(hs, p)
				h.sessions.release(hs)
			}
			return nil, h.refuseCall(p, instrumentation.RefusalSubscriptionLimit, http.StatusServiceUnavailable, errSubscriptionCap)
		}
		p.release, p.stream = release, true
	}
	h.active.enter()
	return p, nil
}

// pingBeforeSession reports an initialize-era ping outside a session,
// which is served without one: the 2025 lifecycle lets a client ping
// before it has the initialize response, so before it has a session id
// to send.
func pingBeforeSession(call *dispatch.Call) bool { return call.Info.Method == "ping" }
