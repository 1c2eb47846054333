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
	"github.com/snodo-go/snodo/mcp"
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

	// Replay (replay.go): the events of a session's stream carry ids and
	// are kept in the session's log; a resumed stream first sends again
	// what its client missed.
	log      *eventLog
	sid      uint64        // the stream's number in log (0: no ids)
	sentSeq  uint64        // the last seq of sid this stream has sent
	priming  bool          // the priming event (id, retry, empty data) is due
	checked  bool          // a resumed stream has looked for lost events
	caughtUp bool          // a resumed GET stream has sent what the log held
	queue    []loggedEvent // logged events still to send
	detached bool          // the connection is gone: events go to the log only
	held     *event        // an event that arrived as the handler closed the stream
}

var errStreamClosed = errors.New("streamablehttp: stream closed")

// Chunks of the event stream. Frames are compact ASCII JSON, so one data
// line carries each.
var keepaliveComment = sse.AppendComment(nil, "keepalive")

func sseEvent(frame []byte) []byte {
	return sse.AppendEvent(make([]byte, 0, len(frame)+8), sse.Event{Data: frame})
}

func newStream(h *Handler, p *Prepared, first []byte) *StreamResponse {
	s := &StreamResponse{h: h, p: p, pending: first}
	hs := p.sess
	switch {
	case hs == nil || p.stream:
	case p.get:
		s.log, s.sid, s.sentSeq = hs.log, p.getStream, p.resumeFrom
	default:
		s.log, s.sid = hs.log, hs.log.open(true, p.call.Info.ID)
	}
	// 2025-11-25 streams start with a priming event, so that a client
	// can resume even one that carried nothing yet (SEP-1699); a
	// resumption continues the stream it names instead.
	s.priming = s.sid != 0 && p.lastEventID == "" && hs.sess.ProtocolVersion() == mcp.Version20251125
	return s
}

// emit returns frame's event, with the next id of the stream and kept in
// the log when the stream has one.
func (s *StreamResponse) emit(frame []byte, final bool) []byte {
	if s.sid == 0 {
		return sseEvent(frame)
	}
	seq := s.log.add(s.sid, frame, final)
	s.sentSeq = seq
	return sse.AppendEvent(nil, sse.Event{ID: eventID(s.sid, seq), Data: frame})
}

// primingEvent is the first event of a 2025-11-25 stream: an id to
// resume from, the reconnection delay, and no data.
func (s *StreamResponse) primingEvent() []byte {
	s.priming = false
	return sse.AppendEvent(nil, sse.Event{ID: eventID(s.sid, 0), Retry: s.h.sessions.cfg.RetryDelay})
}

// resumable reports whether the stream outlives its connection: a POST
// stream in a session, whose request goes on when the client goes away
// (the 2025 revisions do not take a disconnect as a cancellation).
func (s *StreamResponse) resumable() bool { return s.sid != 0 && !s.p.get && !s.p.stream }

// detach lets the connection go and keeps serving the request into the
// log, on a goroutine that ends with the request, so that the client can
// resume the stream with Last-Event-ID.
func (s *StreamResponse) detach() {
	s.detached = true
	go func() {
		for {
			if _, err := s.Next(context.Background()); err != nil {
				return
			}
		}
	}()
}

// closeRequested reports whether the handler asked for the stream to
// end (dispatch.CloseStream) and it still has its connection.
func (s *StreamResponse) closeRequested() bool {
	if !s.resumable() || s.detached {
		return false
	}
	select {
	case <-s.p.x.closeStream:
		return true
	default:
		return false
	}
}

// handle returns the chunk of an event of the request: a notification,
// or the final response, after which the stream is done.
func (s *StreamResponse) handle(ev event) []byte {
	if !ev.final {
		s.needAck = true
		return s.emit(ev.frame, false)
	}
	_, frame := s.h.final(s.p, ev.result)
	s.done = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.p.finish()
	return s.emit(frame, true)
}

// dropped is called when writing a chunk failed (the client went away):
// a resumable stream detaches, any other is closed.
func (s *StreamResponse) dropped() {
	if s.resumable() && !s.done && !s.detached {
		s.detach()
		return
	}
	s.Close()
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
	if s.p.get && s.p.resumePost {
		return s.nextResumed(ctx)
	}
	if s.p.get {
		return s.nextSession(ctx)
	}
	if s.priming {
		return s.primingEvent(), nil
	}
	if s.closeRequested() {
		// The handler asked for the stream to end; the client resumes it.
		s.detach()
		return nil, io.EOF
	}
	if s.needAck {
		s.needAck = false
		s.p.x.ack(nil) // the previous notification was written
	}
	if s.held != nil {
		ev := *s.held
		s.held = nil
		return s.handle(ev), nil
	}
	if s.pending != nil {
		f := s.pending
		s.pending, s.needAck = nil, true
		return s.emit(f, false), nil
	}
	if s.timer == nil {
		s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
	} else {
		s.timer.Reset(s.h.o.limits.KeepAlive)
	}
	var closeCh <-chan struct{}
	if s.resumable() && !s.detached {
		closeCh = s.p.x.closeStream
	}
	select {
	case ev := <-s.p.x.events:
		if s.closeRequested() {
			s.held = &ev // the handler closed its stream before this event
			s.detach()
			return nil, io.EOF
		}
		return s.handle(ev), nil
	case <-s.timer.C:
		return keepaliveComment, nil
	case <-s.p.clientCancel:
		// Cancelled by the client: the stream ends with no response.
		s.Close()
		return nil, io.EOF
	case <-closeCh:
		// The handler asked for the stream to end; the client resumes it.
		s.detach()
		return nil, io.EOF
	case <-ctx.Done():
		if s.resumable() {
			s.detach()
			return nil, ctx.Err()
		}
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
	if s.resumable() {
		s.log.end(s.sid) // no response will follow
	}
	s.p.finish()
}

// nextSession is Next for a session's GET stream: the session's change
// notifications (pulled one at a time, each after the previous one was
// written), keepalive comments while there are none, and the end (no
// final event) when the session ends or the handler drains.
func (s *StreamResponse) nextSession(ctx context.Context) ([]byte, error) {
	hs := s.p.sess
	if s.priming {
		return s.primingEvent(), nil
	}
	if chunk := s.resumeLog(); chunk != nil {
		return chunk, nil
	}
	for {
		if frame := hs.sess.NextNotification(); frame != nil {
			return s.emit(frame, false), nil
		}
		if s.timer == nil {
			s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
		} else {
			s.timer.Reset(s.h.o.limits.KeepAlive)
		}
		select {
		case <-hs.wake:
		case <-s.p.kick:
			// The client reconnected to this stream on another request.
			s.Close()
			return nil, io.EOF
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

// resumeLog returns, for a resumed GET stream, the next chunk owed from
// the log: a notice if events were lost, then each event the client has
// not received; nil once it has caught up.
func (s *StreamResponse) resumeLog() []byte {
	if s.caughtUp || s.p.lastEventID == "" {
		return nil
	}
	if !s.checked {
		s.checked = true
		if s.p.lostUnknown || s.log.since(s.sid, s.sentSeq).lost {
			return sseEvent(lostNotice(s.p.lastEventID, s.log.maxEvents, s.log.maxBytes))
		}
	}
	if len(s.queue) == 0 {
		s.queue = s.log.since(s.sid, s.sentSeq).events
		if len(s.queue) == 0 {
			s.caughtUp = true
			return nil
		}
	}
	e := s.queue[0]
	s.queue = s.queue[1:]
	s.sentSeq = e.seq
	return sse.AppendEvent(nil, sse.Event{ID: eventID(e.stream, e.seq), Data: e.frame})
}

// nextResumed is Next for a POST stream resumed on a GET: the events the
// client missed, from the log, then the rest as the request produces
// them, until its response; the stream then ends.
func (s *StreamResponse) nextResumed(ctx context.Context) ([]byte, error) {
	hs := s.p.sess
	for {
		if len(s.queue) == 0 {
			r := s.log.since(s.sid, s.sentSeq)
			if r.lost && !s.checked {
				s.checked = true
				if r.finalLost {
					s.done = true
					s.p.finish()
					return sseEvent(encodeError(r.requestID, errResponseLost(s.log.maxEvents, s.log.maxBytes))), nil
				}
				return sseEvent(lostNotice(s.p.lastEventID, s.log.maxEvents, s.log.maxBytes)), nil
			}
			s.checked = true
			s.queue = r.events
			if len(s.queue) == 0 {
				if r.done {
					s.done = true
					s.p.finish()
					return nil, io.EOF
				}
				if s.timer == nil {
					s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
				} else {
					s.timer.Reset(s.h.o.limits.KeepAlive)
				}
				select {
				case <-r.wait:
					continue
				case <-s.timer.C:
					return keepaliveComment, nil
				case <-hs.endCh:
				case <-s.h.drainCh:
				case <-ctx.Done():
				case <-s.h.host.Context().Done():
				}
				s.done = true
				s.timer.Stop()
				s.p.finish()
				return nil, io.EOF
			}
		}
		e := s.queue[0]
		s.queue = s.queue[1:]
		s.sentSeq = e.seq
		if e.final {
			s.done = true
			if s.timer != nil {
				s.timer.Stop()
			}
			s.p.finish()
		}
		return sse.AppendEvent(nil, sse.Event{ID: eventID(e.stream, e.seq), Data: e.frame}), nil
	}
}
