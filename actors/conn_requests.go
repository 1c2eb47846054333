package actors

// How admissions and ends of requests reach the connection actor: in
// batches. The reader admitting a request and the pump ending one append
// to the connection's request log under a lock; the first append since
// the actor last read the log sends it one drainRequests message, and
// the actor then books everything logged so far in one turn. Under load
// many requests share a message, so the actor's mailbox is scheduled far
// less often than twice per request; alone, a request costs the same two
// messages as it would without the log.

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// drainRequests asks the connection actor to book its request log. It
// may arrive after the actor stopped.
type drainRequests struct{}

func (*drainRequests) IgnoreDeadLetterLogging() {}

var drainRequestsTick = &drainRequests{}

// requestEvent is one entry of the log: a request admitted, or ended
// (its response written or dropped).
type requestEvent struct {
	e     *reqEntry
	ended bool
}

// requestLog holds the events the connection actor has not booked yet,
// in the order they happened.
type requestLog struct {
	mu     sync.Mutex
	events []requestEvent
	// spare is the slice the actor booked last, reused for the next
	// batch so a steady load allocates nothing.
	spare []requestEvent
	// pending is set while a drainRequests is on its way.
	pending atomic.Bool
}

// maxSpareEvents bounds the slice a log keeps between batches: a burst
// larger than this is not kept.
const maxSpareEvents = 1024

// append logs ev and reports whether the caller must send drainRequests:
// true for the first event since the actor last took the log.
func (l *requestLog) append(ev requestEvent) bool {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
	return l.pending.CompareAndSwap(false, true)
}

// take returns the events logged so far and empties the log. The slice
// is the caller's until its next take. pending is cleared before the log
// is read, so an event appended after the read sends a new drainRequests.
func (l *requestLog) take() []requestEvent {
	l.pending.Store(false)
	l.mu.Lock()
	evs := l.events
	if cap(l.spare) > maxSpareEvents {
		l.spare = nil
	}
	l.events, l.spare = l.spare[:0], evs
	l.mu.Unlock()
	return evs
}

// logRequest logs a request event and wakes the connection actor if the
// event is the first since it last read the log.
func (c *connActor) logRequest(ev requestEvent) {
	if c.h.reqLog.append(ev) {
		c.s.send(c.self, drainRequestsTick)
	}
}

// bookRequests books every logged event in order: an admitted request is
// recorded, an ended one removed and its actor stopped. The actor calls
// it on drainRequests and before any message whose meaning depends on
// what the reader admitted before sending it (a cancellation, the end of
// input, an inspection): the reader logs a request before it sends those,
// but the drainRequests of that request may still be behind them.
func (c *connActor) bookRequests(ac actor.Context) {
	evs := c.h.reqLog.take()
	if len(evs) == 0 {
		return
	}
	for _, ev := range evs {
		if !ev.ended {
			c.record(ac, ev.e)
		} else if cur, ok := c.requests[ev.e.id]; ok && cur == ev.e {
			delete(c.requests, ev.e.id)
			c.stopRequest(ac, ev.e)
		}
	}
	clear(evs) // the entries are done with; the slice is reused
	c.checkDrained(ac)
}
