// A Listener: one consumer attached to a Hub, with its bounded buffer.

package hub

import (
	"errors"

	"github.com/snodo-go/snodo/dispatch"
)

// Listener is one consumer attached to a Hub. It is a
// [dispatch.SessionSubscription]: Next returns its events one at a time,
// oldest first. Its methods are safe for concurrent use.
type Listener struct {
	hub  *Hub
	wake func()

	// Guarded by hub.mu.
	kinds      uint8                  // bit 1<<kind for each list-changed kind
	uris       map[string]struct{}    // resource subscriptions
	keys       map[memberKey]struct{} // extension filter keys
	buf        []dispatch.Event       // ring of pending events, grown up to maxBuffer
	head, n    int
	waiting    bool // Next found nothing: wake on the next event
	completing bool // Complete was called: end once the buffer is empty
	closed     bool
	dropped    int64
}

// ErrListenerClosed is returned by Next after Close.
var ErrListenerClosed = errors.New("hub: listener closed")

// Next returns the oldest pending event; [dispatch.ErrNoEvent] when
// there is none (wake is called when one arrives);
// [dispatch.ErrSubscriptionComplete] once the hub completed the listener
// and its buffer is empty; ErrListenerClosed after Close.
func (l *Listener) Next() (dispatch.Event, error) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	switch {
	case l.closed:
		return dispatch.Event{}, ErrListenerClosed
	case l.n > 0:
		ev := l.buf[l.head]
		l.buf[l.head] = dispatch.Event{}
		l.head = (l.head + 1) % len(l.buf)
		l.n--
		return ev, nil
	case l.completing:
		h.detachLocked(l)
		return dispatch.Event{}, dispatch.ErrSubscriptionComplete
	}
	l.waiting = true
	return dispatch.Event{}, dispatch.ErrNoEvent
}

// Subscribe adds resource URIs to the listener's filter (an
// initialize-era resources/subscribe). URIs it already has are ignored.
func (l *Listener) Subscribe(uris ...string) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	if l.closed {
		return
	}
	for _, u := range uris {
		h.subscribeLocked(l, u)
	}
}

// Unsubscribe removes resource URIs from the listener's filter.
func (l *Listener) Unsubscribe(uris ...string) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	for _, u := range uris {
		h.unsubscribeLocked(l, u)
	}
}

// Dropped returns how many of the listener's events were lost to
// overflow.
func (l *Listener) Dropped() int64 {
	l.hub.mu.Lock()
	defer l.hub.mu.Unlock()
	return l.dropped
}

// Close detaches the listener; its pending events are discarded. It is
// idempotent.
func (l *Listener) Close() {
	h := l.hub
	h.mu.Lock()
	h.detachLocked(l)
	h.unlock()
}

// pushLocked buffers ev for l, applying the overflow policy, counts the
// outcome in r, and returns the wake function to call when l was waiting.
func (l *Listener) pushLocked(ev dispatch.Event, r *dispatch.PublishResult) func() {
	limit := l.hub.maxBuffer
	if l.n == limit {
		r.Dropped++
		l.dropped++
		if l.hub.overflow == DropNewest {
			return nil
		}
		// Drop the oldest: the new event takes its slot at the tail.
		l.buf[l.head] = ev
		l.head = (l.head + 1) % len(l.buf)
		r.Buffered++
		return nil
	}
	if l.n == len(l.buf) {
		l.grow(limit)
	}
	l.buf[(l.head+l.n)%len(l.buf)] = ev
	l.n++
	if l.waiting {
		l.waiting = false
		r.Delivered++
		return l.wake
	}
	r.Buffered++
	return nil
}

// grow enlarges the ring (doubling, at most limit), keeping order. An
// idle listener holds no buffer at all.
func (l *Listener) grow(limit int) {
	size := min(max(4, 2*len(l.buf)), limit)
	nb := make([]dispatch.Event, size)
	for i := 0; i < l.n; i++ {
		nb[i] = l.buf[(l.head+i)%len(l.buf)]
	}
	l.buf, l.head = nb, 0
}
