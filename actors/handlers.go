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
// period) and name the ones that ignore cancellation.
type handlerSet struct {
	mu      sync.Mutex
	running map[*reqEntry]struct{}
	idle    chan struct{} // closed when running empties; nil unless someone waits
}

func (s *handlerSet) add(e *reqEntry) {
	s.mu.Lock()
	if s.running == nil {
		s.running = map[*reqEntry]struct{}{}
	}
	s.running[e] = struct{}{}
	s.mu.Unlock()
}

func (s *handlerSet) remove(e *reqEntry) {
	s.mu.Lock()
	delete(s.running, e)
	if len(s.running) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

// wait blocks until no handler runs or ctx ends, and returns the handlers
// still running then, oldest first.
func (s *handlerSet) wait(ctx context.Context) []tree.HandlerInfo {
	s.mu.Lock()
	if len(s.running) == 0 {
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
	out := make([]tree.HandlerInfo, 0, len(s.running))
	for e := range s.running {
		out = append(out, tree.HandlerInfo{ID: e.id.String(), Method: e.method, Started: e.started})
	}
	slices.SortFunc(out, func(a, b tree.HandlerInfo) int { return a.Started.Compare(b.Started) })
	return out
}
