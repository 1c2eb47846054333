package streamablehttp

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// boundedListener is the native listener's net.Listener: it caps open
// connections (a connection accepted at the cap is closed without being
// read) and gives each connection a per-read timeout.
type boundedListener struct {
	net.Listener
	max         int64
	readTimeout time.Duration
	open        tracker
	refused     atomic.Int64
	accepted    atomic.Int64
}

func (l *boundedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.n.Load() >= l.max {
			c.Close()
			l.refused.Add(1)
			continue
		}
		l.open.enter()
		l.accepted.Add(1)
		return &boundedConn{Conn: c, l: l}, nil
	}
}

// boundedConn applies the read timeout to each read of a request's head
// and body. net/http sets a connection's read deadline for the head and
// the handler sets one for the body; each read then waits at most the read
// timeout, within that deadline. With no deadline set (net/http's
// background read while a handler runs, which is how a disconnect is
// noticed) and while a kept-alive connection waits for its next request
// (bounded by the idle timeout), reads are not bounded.
type boundedConn struct {
	net.Conn
	l *boundedListener

	mu    sync.Mutex // orders our deadline updates with net/http's
	outer time.Time  // the read deadline net/http or the handler asked for
	idle  atomic.Bool
	once  sync.Once
}

func (c *boundedConn) Read(p []byte) (int, error) {
	if c.l.readTimeout > 0 && !c.idle.Load() {
		c.mu.Lock()
		if !c.outer.IsZero() {
			if d := time.Now().Add(c.l.readTimeout); d.Before(c.outer) {
				_ = c.Conn.SetReadDeadline(d)
			}
		}
		c.mu.Unlock()
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.idle.Store(false) // the next request has begun: bound its reads
	}
	return n, err
}

func (c *boundedConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outer = t
	return c.Conn.SetReadDeadline(t)
}

func (c *boundedConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outer = t
	return c.Conn.SetDeadline(t)
}

func (c *boundedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.open.leave)
	return err
}

// connState is the http.Server's ConnState hook: it tells a connection
// when it starts waiting for its next request.
func connState(c net.Conn, st http.ConnState) {
	if bc, ok := c.(*boundedConn); ok && st == http.StateIdle {
		bc.idle.Store(true)
	}
}
