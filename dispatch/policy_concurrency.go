// A component's concurrency limit: places, a bounded FIFO of waiting
// calls, and the executor slot given back for the wait.

package dispatch

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/internal/slot"
)

// concurrencyLimiter holds a component's places.
type concurrencyLimiter struct {
	limit ConcurrencyLimit

	mu      sync.Mutex
	running int
	waiters list.List // of *placeWaiter, FIFO

	// hold is a moving average of how long calls hold a place, in
	// nanoseconds: the basis of a refusal's retry estimate.
	hold atomic.Int64
	// Totals, for the supervision tree.
	admitted, waited, refused atomic.Int64
}

// placeWaiter is a call waiting for a place.
type placeWaiter struct {
	ready   chan struct{}
	granted bool // guarded by the limiter's mu
}

func newConcurrencyLimiter(l ConcurrencyLimit) *concurrencyLimiter {
	return &concurrencyLimiter{limit: l}
}

// placeOutcome is what acquire decided.
type placeOutcome uint8

const (
	placeTaken     placeOutcome = iota + 1 // at once
	placeAfterWait                         // after waiting
	placeRefused                           // the waiting places are full
	placeCancelled                         // ctx ended while waiting
)

// acquire takes a place for a call, waiting for one when every place is
// taken and a waiting place is free. While it waits the call gives its
// executor slot (if it has one) back, and takes one again once it has
// its place; onWait is told when the wait starts. It returns how long the
// call waited. A cancelled wait (placeCancelled) leaves the queue at once
// and holds neither a place nor a slot.
func (l *concurrencyLimiter) acquire(ctx context.Context, onWait func(running, waiting int)) (placeOutcome, time.Duration) {
	l.mu.Lock()
	if l.running < l.limit.Max && l.waiters.Len() == 0 {
		l.running++
		l.mu.Unlock()
		l.admitted.Add(1)
		return placeTaken, 0
	}
	if l.waiters.Len() >= l.limit.MaxWaiting { // mutation: policy-refuses-when-queue-full
		l.mu.Unlock()
		l.refused.Add(1)
		return placeRefused, 0
	}
	w := &placeWaiter{ready: make(chan struct{})}
	elem := l.waiters.PushBack(w)
	running, waiting := l.running, l.waiters.Len()
	l.mu.Unlock()
	l.waited.Add(1)
	start := time.Now()
	if onWait != nil {
		onWait(running, waiting)
	}
	s := slot.From(ctx)
	if s != nil {
		s.Release()
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		l.mu.Lock()
		if !w.granted {
			l.waiters.Remove(elem)
			l.mu.Unlock()
			return placeCancelled, time.Since(start)
		}
		l.mu.Unlock()
		l.release(0) // granted as ctx ended: pass it on
		return placeCancelled, time.Since(start)
	}
	if s != nil {
		if err := s.Reacquire(ctx); err != nil {
			l.release(0)
			return placeCancelled, time.Since(start)
		}
	}
	l.admitted.Add(1)
	return placeAfterWait, time.Since(start)
}

// release gives a place back: to the first waiting call, else free. held
// is how long the call held it (0 when it never ran).
func (l *concurrencyLimiter) release(held time.Duration) {
	if held > 0 {
		// An exponentially weighted average, weight 1/8; races between
		// callers lose an update, which an estimate can afford.
		old := l.hold.Load()
		l.hold.Store(old + (int64(held)-old)/8)
	}
	l.mu.Lock()
	if f := l.waiters.Front(); f != nil {
		w := l.waiters.Remove(f).(*placeWaiter)
		w.granted = true
		close(w.ready)
		l.mu.Unlock()
		return
	}
	l.running--
	l.mu.Unlock()
}

// retryAfter estimates when a refused call may find a waiting place: the
// time for one call's worth of the queue to drain, at least a second.
func (l *concurrencyLimiter) retryAfter() time.Duration {
	d := time.Duration(l.hold.Load())
	if d < time.Second {
		d = time.Second
	}
	return d
}

// counts returns the places taken and the calls waiting.
func (l *concurrencyLimiter) counts() (running, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running, l.waiters.Len()
}
