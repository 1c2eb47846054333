package streamablehttp

// The listener's connections: the cap, per-read deadlines, and refusing
// unread requests at a drain.

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
)

// boundedListener is the native listener's net.Listener: it caps open
// connections (a connection accepted at the cap is closed without being
// read), gives each connection a per-read timeout, and knows each
// connection's state for the drain.
type boundedListener struct {
	net.Listener
	max         int64
	readTimeout time.Duration
	open        tracker // connections open
	busy        tracker // connections serving a request (StateActive)
	refused     atomic.Int64
	sink        instrumentation.Sink // for refusals; nil: none

	mu    sync.Mutex
	conns map[*boundedConn]struct{}
}

func newBoundedListener(l net.Listener, max int, readTimeout time.Duration) *boundedListener {
	return &boundedListener{Listener: l, max: int64(max), readTimeout: readTimeout, conns: map[*boundedConn]struct{}{}}
}

func (l *boundedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.n.Load() >= l.max {
			c.Close()
			if l.sink != nil {
				l.sink.Refusal(instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalConnectionLimit})
			}
			l.refused.Add(1)
			continue
		}
		bc := &boundedConn{Conn: c, l: l}
		l.open.enter()
		l.mu.Lock()
		l.conns[bc] = struct{}{}
		l.mu.Unlock()
		return bc, nil
	}
}

// connState is the http.Server's ConnState hook.
func (l *boundedListener) connState(c net.Conn, st http.ConnState) {
	bc, ok := c.(*boundedConn)
	if !ok {
		return
	}
	bc.stateMu.Lock()
	prev := bc.state
	bc.state = st
	bc.stateMu.Unlock()
	if st == http.StateIdle {
		bc.idle.Store(true) // waiting for the next request: no read bound
	}
	switch {
	case st == http.StateActive && prev != http.StateActive:
		l.busy.enter()
	case prev == http.StateActive && st != http.StateActive:
		l.busy.leave()
	}
}

// closeUnread closes every connection that is not serving a request
// (new, or kept alive between requests) without writing to it: nothing
// was asked on it, so nothing is answered (as net/http's own Shutdown
// does). A request already on its way was not read; its client sees the
// connection close, as HTTP/1.1 allows for a server ending an idle
// connection.
func (l *boundedListener) closeUnread() {
	l.mu.Lock()
	conns := make([]*boundedConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		// Holding the state lock keeps net/http from making the
		// connection active meanwhile.
		c.stateMu.Lock()
		if c.state == http.StateNew || c.state == http.StateIdle {
			_ = c.Close()
		}
		c.stateMu.Unlock()
	}
}

// boundedConn applies the read timeout to each read of a request's head
// and body. net/http sets a connection's read deadline for the head and
// the handler sets one for the body; each read then waits at most the read
// timeout, within that deadline. With no deadline set (net/http's
// background read while a handler runs, which is how a disconnect is
// noticed) and while a kept-alive connection waits for its next request
// (bounded by the idle timeout), reads are not bounded.
//
// A read deadline asked for while no read is under way is only recorded,
// and given to the connection when the next read starts: each deadline
// given to a connection updates a runtime timer, and net/http sets the
// read deadline about six times per request, most of them overtaken
// before any read. One asked for during a read is given at once, so it
// still interrupts that read, as net/http's abort of its background read
// needs.
type boundedConn struct {
	net.Conn
	l *boundedListener

	mu      sync.Mutex // orders our deadline updates with net/http's
	outer   time.Time  // the read deadline net/http or the handler asked for
	applied time.Time  // the read deadline the connection has
	// wOuter is the write deadline asked for, wApplied the one the
	// connection has.
	wOuter, wApplied time.Time
	reading, writing int // reads and writes under way
	idle             atomic.Bool
	once             sync.Once

	stateMu sync.Mutex
	state   http.ConnState // as net/http reports it
}

func (c *boundedConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	d := c.outer
	if c.l.readTimeout > 0 && !c.idle.Load() && !d.IsZero() {
		if t := time.Now().Add(c.l.readTimeout); t.Before(d) {
			d = t
		}
	}
	if !d.Equal(c.applied) { // mutation: http-read-applies-deadline
		_ = c.Conn.SetReadDeadline(d)
		c.applied = d
	}
	c.reading++
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reading--
	c.mu.Unlock()
	if n > 0 {
		c.idle.Store(false) // the next request has begun: bound its reads
	}
	return n, err
}

// headerTooLarge is how net/http answers a request head over
// MaxHeaderBytes, written to the connection in one piece before any
// handler runs. A handler's response never starts this way: net/http
// writes its headers in sorted order (Connection before Content-Type).
const headerTooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Write reports net/http's own 431 to the sink as a refusal.
func (c *boundedConn) Write(p []byte) (int, error) {
	if c.l.sink != nil && len(p) >= len(headerTooLarge) && string(p[:len(headerTooLarge)]) == headerTooLarge { // mutation: http-431-is-a-refusal
		c.l.sink.Refusal(instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalHeaderTooLarge, Status: http.StatusRequestHeaderFieldsTooLarge})
	}
	c.mu.Lock()
	c.giveWriteDeadline()
	c.writing++
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.writing--
	c.mu.Unlock()
	return n, err
}

func (c *boundedConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outer = t
	if c.reading == 0 { // mutation: http-deadline-during-read-applies-at-once
		return nil // the next Read gives it to the connection
	}
	c.applied = t
	return c.Conn.SetReadDeadline(t)
}

// SetWriteDeadline records the write deadline, given to the connection
// when the next write starts, or at once during a write.
func (c *boundedConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wOuter = t
	if c.writing == 0 { // mutation: http-write-deadline-during-write-applies-at-once
		return nil
	}
	return c.giveWriteDeadline()
}

// giveWriteDeadline gives the connection the recorded write deadline,
// up to a sixteenth of its distance later than asked, and keeps the one
// it has while that still holds: the handler asks for one before every
// response, each a little later than the last, and net/http clears it
// after each, so most of them cost no timer update. A deadline not in the
// future (one that stops writes) or none is given exactly. c.mu is held.
func (c *boundedConn) giveWriteDeadline() error {
	t := c.wOuter
	if !t.IsZero() {
		if d := time.Until(t); d > 0 {
			slack := d / 16
			if !c.wApplied.Before(t) && c.wApplied.Sub(t) <= slack { // mutation: http-write-deadline-kept-within-slack
				return nil
			}
			t = t.Add(slack)
		}
	}
	if t.Equal(c.wApplied) {
		return nil
	}
	c.wApplied = t
	return c.Conn.SetWriteDeadline(t)
}

func (c *boundedConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outer, c.applied, c.wOuter, c.wApplied = t, t, t, t
	return c.Conn.SetDeadline(t)
}

func (c *boundedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		c.l.open.leave()
	})
	return err
}
