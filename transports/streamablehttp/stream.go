package streamablehttp

// StreamResponse: an answer written as an event stream, pulled one event
// at a time.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/sse"
)

// StreamResponse is a text/event-stream response: request-scoped
// notifications (progress, subscription events) and then the final
// JSON-RPC response, each one SSE event, with keepalive comments when the
// stream is quiet. The host writes [StreamResponse.Header] with status 200,
// then each chunk [StreamResponse.Next] returns, flushing after each.
//
// Next and Close are called from one goroutine. A notification's handler
// waits until the host asks for the next chunk (the sign the previous one
// was written), so notifications are never lost ahead of the response.
type StreamResponse struct {
	h       *Handler
	p       *Prepared
	pending []byte // a notification taken before the stream was returned
	needAck bool
	timer   *time.Timer
	done    bool

	// A subscriptions/listen stream is pulled from its source instead.
	listen     *dispatch.Stream
	wake       chan struct{}
	completing bool
}

var errStreamClosed = errors.New("streamablehttp: stream closed")

// Chunks of the event stream. Frames are compact ASCII JSON, so one data
// line carries each.
var keepaliveComment = sse.AppendComment(nil, "keepalive")

func sseEvent(frame []byte) []byte {
	return sse.AppendEvent(make([]byte, 0, len(frame)+8), sse.Event{Data: frame})
}

func newStream(h *Handler, p *Prepared, first []byte) *StreamResponse {
	return &StreamResponse{h: h, p: p, pending: first}
}

// Header returns the headers of the stream: Content-Type
// text/event-stream, Cache-Control no-cache, and X-Accel-Buffering no so
// that proxies do not hold events back.
func (s *StreamResponse) Header() http.Header {
	return http.Header{"Content-Type": sseContentType, "Cache-Control": noCache, "X-Accel-Buffering": noBuffering}
}

// Next returns the next chunk to write: an event, or a keepalive comment
// when nothing happened for the keepalive interval. After the final event
// it returns io.EOF. When ctx ends (the client went away) it cancels the
// request and returns ctx's error; nothing more is to be written.
func (s *StreamResponse) Next(ctx context.Context) ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	if s.listen != nil {
		return s.nextListen(ctx)
	}
	if s.p.get {
		return s.nextSession(ctx)
	}
	if s.needAck {
		s.needAck = false
		s.p.x.ack(nil) // the previous notification was written
	}
	if s.pending != nil {
		f := s.pending
		s.pending, s.needAck = nil, true
		return sseEvent(f), nil
	}
	if s.timer == nil {
		s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
	} else {
		s.timer.Reset(s.h.o.limits.KeepAlive)
	}
	select {
	case ev := <-s.p.x.events:
		if !ev.final {
			s.needAck = true
			return sseEvent(ev.frame), nil
		}
		_, frame := s.h.final(s.p, ev.result)
		s.done = true
		s.timer.Stop()
		s.p.finish()
		return sseEvent(frame), nil
	case <-s.timer.C:
		return keepaliveComment, nil
	case <-s.p.clientCancel:
		// Cancelled by the client: the stream ends with no response.
		s.Close()
		return nil, io.EOF
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	case <-s.h.host.Context().Done():
		s.Close()
		return nil, ErrShuttingDown
	}
}

// Close abandons the stream: a request still running is cancelled and
// delivers nothing, a waiting notification fails, and the request ends.
// Call it when a write fails. It is a no-op after the final event.
func (s *StreamResponse) Close() {
	if s.done {
		return
	}
	s.done = true
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.listen != nil {
		s.listen.Close()
		s.p.finish()
		return
	}
	s.p.mu.Lock()
	task := s.p.task
	s.p.mu.Unlock()
	if task != nil {
		task.Cancel()
	}
	s.p.x.ack(errStreamClosed)
	s.p.finish()
}

// nextSession is Next for a session's GET stream: the session's change
// notifications (pulled one at a time, each after the previous one was
// written), keepalive comments while there are none, and the end (no
// final event) when the session ends or the handler drains.
func (s *StreamResponse) nextSession(ctx context.Context) ([]byte, error) {
	hs := s.p.sess
	for {
		if frame := hs.sess.NextNotification(); frame != nil {
			return sseEvent(frame), nil
		}
		if s.timer == nil {
			s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
		} else {
			s.timer.Reset(s.h.o.limits.KeepAlive)
		}
		select {
		case <-hs.wake:
		case <-hs.endCh:
			s.Close()
			return nil, io.EOF
		case <-s.h.drainCh:
			s.Close()
			return nil, io.EOF
		case <-s.timer.C:
			return keepaliveComment, nil
		case <-ctx.Done():
			s.Close()
			return nil, ctx.Err()
		case <-s.h.host.Context().Done():
			s.Close()
			return nil, ErrShuttingDown
		}
	}
}
