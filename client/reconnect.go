// Reconnection: a connection that ended is opened again (a spawned
// server restarted, an HTTP endpoint reached again) with bounded
// exponential backoff.

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// Reconnect configures [WithReconnect]. A zero field keeps its default.
type Reconnect struct {
	// Attempts is the most connection attempts one reconnection makes
	// before the request that needed it fails. Default 5.
	Attempts int
	// InitialDelay is the wait after the first failed attempt; each
	// further wait doubles it. Default 100 ms.
	InitialDelay time.Duration
	// MaxDelay bounds each wait. Default 5 s.
	MaxDelay time.Duration
}

func (r Reconnect) withDefaults() Reconnect {
	if r.Attempts <= 0 {
		r.Attempts = 5
	}
	if r.InitialDelay <= 0 {
		r.InitialDelay = 100 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 5 * time.Second
	}
	return r
}

// ErrReconnectFailed: the connection ended and could not be opened again
// within the attempts [Reconnect] allows. The error wrapping it names the
// last attempt's failure.
var ErrReconnectFailed = errors.New("client: reconnecting failed")

// WithReconnect opens the connection again when it ends while the Client
// is open: a [Command] server that exited is started again, an [HTTP]
// endpoint that refused the connection is tried again, and the revision
// is negotiated anew. The attempts wait with exponential backoff (r's
// bounds). A request that failed before it was sent is sent once more on
// the new connection; one that may have reached the server fails with
// the connection's error, since running it twice may not be safe, and
// the next request uses the new connection. Subscriptions end with the
// connection they were on (Listen again). [Stream] connects only once
// and cannot reconnect.
func WithReconnect(r Reconnect) Option {
	return optionFunc(func(c *config) error {
		if r.Attempts < 0 || r.InitialDelay < 0 || r.MaxDelay < 0 {
			return fmt.Errorf("client: WithReconnect: negative bound in %+v", r)
		}
		r = r.withDefaults()
		c.reconnect = &r
		return nil
	})
}

// notSent marks a failure before the request left the client.
type notSent struct{ err error }

func (e *notSent) Error() string { return e.err.Error() }
func (e *notSent) Unwrap() error { return e.err }

// connectionLost reports whether err means the connection is gone (or
// could not be made), so that reconnecting may help.
func connectionLost(err error) bool {
	if errors.Is(err, ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Reconnects returns how many times the connection was opened again.
func (c *Client) Reconnects() int64 { return c.reconnects.Load() }

// reconnect opens the connection again, unless another request already
// did since gen was read. It returns nil when a connection is open.
func (c *Client) reconnect(ctx context.Context, gen int64) error {
	c.reconnMu.Lock()
	defer c.reconnMu.Unlock()
	if c.connGen.Load() != gen {
		return nil
	}
	r := c.cfg.reconnect
	delay := r.InitialDelay
	var last error
	for attempt := 1; ; attempt++ {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return ErrClosed
		}
		old := c.conn
		c.conn = nil
		c.retrying = true
		c.mu.Unlock()
		if old != nil {
			_ = old.Close()
		}
		last = c.connect(ctx)
		c.mu.Lock()
		c.retrying = false
		c.mu.Unlock()
		if last == nil {
			c.connGen.Add(1)
			c.reconnects.Add(1)
			c.cfg.logger.Info("client: reconnected", "attempt", attempt)
			return nil
		}
		if attempt >= r.Attempts {
			return fmt.Errorf("%w after %d attempts: %v", ErrReconnectFailed, attempt, last)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %v", ErrReconnectFailed, context.Cause(ctx))
		case <-c.bg.Done():
			t.Stop()
			return ErrClosed
		}
		delay = min(delay*2, r.MaxDelay)
	}
}
