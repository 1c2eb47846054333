package actors

// The application handlers a connection has started, for a bounded
// shutdown.

import (
	"context"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/internal/tree"
)

// handlerSet tracks the handlers of one connection whose goroutine has
// not returned yet, so shutdown can wait for them (bounded by a grace
// period) and name the ones that ignore cancellation. The entries are
// linked through their hprev and hnext: adding and removing one costs no
// hashing and no map growth.
type handlerSet struct {
	mu      sync.Mutex
	running *reqEntry     // the most recently added; linked through hnext
	idle    chan struct{} // closed when running empties; nil unless someone waits
}

func (s *handlerSet) add(e *reqEntry) {
	s.mu.Lock()
	e.hprev, e.hnext = nil, s.running
	if s.running != nil {
		s.running.hprev = e
	}
	s.running = e
	s.mu.Unlock()
}

// remove takes out e, which add put in.
func (s *handlerSet) remove(e *reqEntry) {
	s.mu.Lock()
	if e.hprev != nil {
		e.hprev.hnext = e.hnext
	} else {
		s.running = e.hnext
	}
	if e.hnext != nil {
		e.hnext.hprev = e.hprev
	}
	e.hprev, e.hnext = nil, nil
	if s.running == nil && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

// wait blocks until no handler runs or ctx ends, and returns the handlers
// still running then, oldest first.
func (s *handlerSet) wait(ctx context.Context) []tree.HandlerInfo {
	s.mu.Lock()
	if s.running == nil {
		s.mu.Unlock()
		return nil
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tree.HandlerInfo
	for e := s.running; e != nil; e = e.hnext {
		out = append(out, tree.HandlerInfo{ID: e.id.String(), Method: e.method, Started: e.started})
	}
	slices.SortFunc(out, func(a, b tree.HandlerInfo) int { return a.Started.Compare(b.Started) })
	return out
}
