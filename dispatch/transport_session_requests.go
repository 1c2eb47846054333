// Transport-author API: a Session's server-to-client requests (the
// transport hands the client's answers to Deliver) and the handler-facing
// PingClient built on them.

package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Server-to-client requests. An initialize-era client is asked for input
// (elicitation, sampling, roots) with a real JSON-RPC request written on
// the stream of the request that needs it; its response arrives later as
// a separate message, which the transport hands to [Session.Deliver]. The
// session pairs the two by the id it issued.

// ErrSessionClosed is why a server-to-client request failed when its
// session ended (the connection closed, or the HTTP session was deleted or
// expired) before the client answered.
var ErrSessionClosed = errors.New("dispatch: session closed")

// ErrNoClientChannel is why a server-to-client request cannot be sent for
// the request being served: it is a 2026-07-28 request (that revision has
// none; handlers ask through *InputRequired), or an initialize-era
// request without a session (HTTP with sessions off), or one whose client
// has not yet sent notifications/initialized.
var ErrNoClientChannel = errors.New("dispatch: the request cannot carry a server-to-client request")

// PingClient sends ping to the client of the initialize-era request ctx
// serves, on that request's stream, and waits for its (empty) answer. It
// fails with ErrNoClientChannel when the request cannot carry it, with
// ctx's error when ctx ends first, with ErrSessionClosed when the session
// ends first, and with a *clientError when the client answers with an
// error.
func PingClient(ctx context.Context) error {
	s := stateFrom(ctx)
	if s == nil || !canAskClient(s.call) {
		return ErrNoClientChannel
	}
	_, err := s.call.Session.request(ctx, s.call.Notifier, "ping", nil)
	return err
}

// canAskClient reports whether a call can carry server-to-client
// requests: an initialize-era call in an initialized session, with a
// stream to write them on.
func canAskClient(c *Call) bool {
	return c.dialect != nil && c.dialect.Era() == eraSession && c.Session != nil && c.Notifier != nil && c.Session.isInitialized()
}

// clientReply is a client's response to a server-to-client request.
type clientReply struct {
	result []byte
	err    *jsonrpc.Error
}

// clientError is a JSON-RPC error a client answered a server-to-client
// request with.
type clientError struct {
	// Method is the server-to-client request's method.
	Method string
	// Err is the client's error.
	Err *jsonrpc.Error
}

// Error names the method and the client's error.
func (e *clientError) Error() string {
	return "dispatch: the client answered " + e.Method + " with error " + e.Err.Error()
}

// Unwrap returns the client's error.
func (e *clientError) Unwrap() error { return e.Err }

// request writes a server-to-client request through w and waits for the
// client's result. It fails with ctx's error when ctx ends first (the
// request being served was cancelled), with ErrSessionClosed when the
// session ends first, and with a *clientError when the client answers
// with an error.
func (s *Session) request(ctx context.Context, w Notifier, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	if s.pending == nil {
		s.pending = map[int64]chan clientReply{}
		s.done = make(chan struct{})
	}
	s.lastID++
	id := s.lastID
	reply := make(chan clientReply, 1)
	s.pending[id] = reply
	done := s.done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()

	frame, err := rpcwire.EncodeRequest(jsonrpc.IntID(id), method, params)
	if err != nil {
		return nil, err
	}
	if err := w.Notify(ctx, frame); err != nil {
		return nil, err
	}
	select {
	case r := <-reply:
		if r.err != nil {
			return nil, &clientError{Method: method, Err: r.err}
		}
		return r.result, nil
	case <-ctx.Done():
		cancelClientRequest(ctx, w, id)
		return nil, ctx.Err()
	case <-done:
		return nil, ErrSessionClosed
	}
}

// abandonTimeout bounds the write of a notifications/cancelled for a
// server-to-client request the server stopped waiting for.
const abandonTimeout = time.Second

// cancelClientRequest tells the client that the server no longer waits
// for its answer to request id (the request that asked for it ended), so
// it can stop asking its user. The write is best effort: the stream of
// the request that ended may be gone already.
func cancelClientRequest(ctx context.Context, w Notifier, id int64) {
	frame, err := rpcwire.EncodeNotification("notifications/cancelled", map[string]any{
		"requestId": id,
		"reason":    "The request that asked for this ended: " + ctx.Err().Error(),
	})
	if err != nil {
		return
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abandonTimeout)
	defer cancel()
	_ = w.Notify(nctx, frame)
}

// Deliver hands a client's JSON-RPC response (a message of kind
// [jsonrpc.KindResponse]) to the server-to-client request waiting for it
// and reports whether one was. A response matching nothing (an unknown id,
// a request already given up, a closed session) is ignored. The message's
// spans are copied.
func (s *Session) Deliver(msg *jsonrpc.Message) bool {
	if s == nil || msg == nil || msg.Kind != jsonrpc.KindResponse {
		return false
	}
	id, ok := msg.ID.Int()
	if !ok {
		return false
	}
	s.mu.Lock()
	reply, ok := s.pending[id]
	if ok {
		delete(s.pending, id) // a second response with the same id matches nothing
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	var r clientReply
	if msg.Error != nil {
		var e jsonrpc.Error
		if jsonwire.Unmarshal(msg.Error, &e) != nil {
			e = jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "malformed error response"}
		}
		r.err = &e
	} else {
		r.result = append([]byte(nil), msg.Result...)
	}
	reply <- r // buffered, and only one sender gets the channel
	return true
}

// Close ends the session: server-to-client requests waiting for the
// client fail with ErrSessionClosed, later ones fail at once, and the
// session leaves the subscription hub.
// Transports call it when the connection or HTTP session ends. Close is
// idempotent and a no-op on a nil *Session.
func (s *Session) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.done != nil {
		close(s.done)
	}
	if s.listener != nil {
		s.listener.Close()
	}
}

// outstanding returns the number of server-to-client requests waiting for
// the client.
func (s *Session) outstanding() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
