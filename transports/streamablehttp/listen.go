package streamablehttp

// subscriptions/listen over HTTP: the stream runs no job and is driven by
// the request's goroutine.

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
)

// executeListen opens a subscriptions/listen stream. The subscription
// slot was taken in Prepare. The stream runs no job: the goroutine that
// writes the response pulls its events (StreamResponse.Next), so an open
// stream holds no execution slot, and the request's subscription actor
// holds the slot and the source until it stops.
func (h *Handler) executeListen(ctx context.Context, p *Prepared) (*Response, *StreamResponse) {
	call := p.call
	wake := make(chan struct{}, 1)
	st, out := h.rt.OpenStream(ctx, call, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if st == nil {
		p.finish()
		return &Response{Status: statusFor(call.SessionEra(), out.ErrorCode), ContentType: mediaJSON, Body: out.Frame}, nil
	}
	spec := tree.StreamSpec{
		ID: call.Info.ID, Method: call.Info.Method, Peer: p.peer,
		Describe: st.Attrs, Release: p.release, Close: st.Close,
	}
	if p.peer != "" {
		spec.Key = reqKey{p.peer, call.Info.ID}
	}
	task, err := h.host.BeginStream(spec)
	if err != nil {
		st.Close()
		p.finish()
		if errors.Is(err, executor.ErrDuplicate) {
			return h.refuseCall(p, instrumentation.RefusalDuplicateID, http.StatusBadRequest, errDuplicateID), nil
		}
		return h.refuseCall(p, instrumentation.RefusalDraining, http.StatusServiceUnavailable, errShuttingDown), nil
	}
	p.mu.Lock()
	p.task = task
	p.mu.Unlock()
	s := newStream(h, p, nil)
	s.listen, s.wake = st, wake
	return nil, s
}

// nextListen is Next for a subscriptions/listen stream: the
// acknowledgement, then one event at a time (each pulled only after the
// previous one was written, since the host calls Next after each write),
// keepalive comments while the source is idle, and the final result when
// the source completes or the handler drains.
func (s *StreamResponse) nextListen(ctx context.Context) ([]byte, error) {
	for {
		frame, last := s.listen.Next()
		if last {
			s.done = true
			if s.timer != nil {
				s.timer.Stop()
			}
			s.p.finish()
			if frame == nil {
				// Closed underneath: the handler stopped.
				return nil, ErrShuttingDown
			}
			return sseEvent(frame), nil
		}
		if frame != nil {
			return sseEvent(frame), nil
		}
		if s.timer == nil {
			s.timer = time.NewTimer(s.h.o.limits.KeepAlive)
		} else {
			s.timer.Reset(s.h.o.limits.KeepAlive)
		}
		select {
		case <-s.wake:
		case <-s.drain():
			s.completing = true
			s.listen.Complete()
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

// drain is the handler's drain channel until the stream has been asked to
// complete, then nil, so a closed channel is not selected again.
func (s *StreamResponse) drain() <-chan struct{} {
	if s.completing {
		return nil
	}
	return s.h.drainCh
}
