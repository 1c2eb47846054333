// Package inprocess connects a client.Client to a dispatch.Runtime in the
// same process, with no I/O: each request is decoded from the bytes the
// client would send on a wire and run with Runtime.Dispatch on a goroutine
// of its own; progress reaches the client through a dispatch.Notifier.
//
// It is the client transport that knows the server core, so that package
// client itself imports none of it.
package inprocess

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// transport runs requests on a Runtime in the same process.
type transport struct {
	rt *dispatch.Runtime
}

// New returns a transport to rt.
func New(rt *dispatch.Runtime) client.Transport { return &transport{rt: rt} }

// Connect implements client.Transport.
func (t *transport) Connect(_ context.Context, peer clientconn.Peer) (clientconn.Conn, error) {
	if t.rt == nil {
		return nil, fmt.Errorf("inprocess: nil Runtime")
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{rt: t.rt, peer: peer, ctx: ctx, cancel: cancel}, nil
}

type conn struct {
	rt     *dispatch.Runtime
	peer   clientconn.Peer
	ctx    context.Context // ends at Close: every request is cancelled
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	claim  string // the version an initialize negotiated
	closed bool
}

func (c *conn) trace(sent bool, frame []byte) {
	if c.peer.Trace != nil {
		c.peer.Trace(sent, frame)
	}
}

func (c *conn) request(msg *jsonrpc.Message, n dispatch.Notifier) *dispatch.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &dispatch.Request{Message: msg, Transport: dispatch.TransportDirect, ProtocolVersion: c.claim, Notifier: n}
}

// Call implements clientconn.Conn.
func (c *conn) Call(_ context.Context, out *clientconn.Outbound) (clientconn.Exchange, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, client.ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	c.trace(true, out.Frame)
	msg, err := jsonrpc.Decode(out.Frame)
	if err != nil {
		c.wg.Done()
		return nil, fmt.Errorf("inprocess: the client sent an undecodable request: %w", err)
	}
	rctx, cancel := context.WithCancel(c.ctx)
	ex := &exchange{c: c, cancel: cancel, msgs: make(chan *jsonrpc.Message, 16), done: make(chan struct{}), lost: make(chan struct{})}
	go func() {
		defer c.wg.Done()
		defer cancel()
		outcome := c.rt.Dispatch(rctx, c.request(msg, ex))
		if outcome.NegotiatedVersion != "" {
			c.mu.Lock()
			c.claim = outcome.NegotiatedVersion
			c.mu.Unlock()
		}
		if c.ctx.Err() != nil {
			// The connection closed under the request: its outcome
			// is not an answer.
			close(ex.lost)
			return
		}
		if outcome.Frame == nil {
			outcome.Frame = rpcwire.EncodeError(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server sent no response"})
		}
		ex.push(rctx, outcome.Frame, true)
	}()
	return ex, nil
}

// Send implements clientconn.Conn: notifications run through the Runtime,
// which answers none.
func (c *conn) Send(ctx context.Context, out *clientconn.Outbound) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return client.ErrClosed
	}
	c.trace(true, out.Frame)
	msg, err := jsonrpc.Decode(out.Frame)
	if err != nil || msg.Kind != jsonrpc.KindNotification {
		return nil // responses to server requests: a Runtime sends none in process
	}
	c.rt.Dispatch(ctx, c.request(msg, nil))
	return nil
}

// Close implements clientconn.Conn: running requests are cancelled and
// awaited.
func (c *conn) CacheKey() string { return fmt.Sprintf("inprocess:%p", c.rt) }

func (c *conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	return nil
}

// exchange carries one request's notifications and response.
type exchange struct {
	c      *conn
	cancel context.CancelFunc
	msgs   chan *jsonrpc.Message
	done   chan struct{} // closed by Close: nothing more is wanted
	lost   chan struct{} // closed when the connection closed first

	closeOnce sync.Once
	mu        sync.Mutex
	answered  bool
}

// Notify implements dispatch.Notifier: the frame waits for the client, as
// a write to a wire would.
func (ex *exchange) Notify(ctx context.Context, frame []byte) error {
	return ex.push(ctx, frame, false)
}

func (ex *exchange) push(ctx context.Context, frame []byte, response bool) error {
	ex.c.trace(false, frame)
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		return err
	}
	if response {
		// The response never waits on a caller that has gone: the
		// channel has room unless notifications fill it, and Close
		// releases it.
		select {
		case ex.msgs <- msg:
		case <-ex.done:
		}
		return nil
	}
	select {
	case ex.msgs <- msg:
		return nil
	case <-ex.done:
		return client.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Next implements clientconn.Exchange.
func (ex *exchange) Next(ctx context.Context) (*jsonrpc.Message, error) {
	ex.mu.Lock()
	answered := ex.answered
	ex.mu.Unlock()
	if answered {
		return nil, io.EOF
	}
	select {
	case msg := <-ex.msgs:
		if msg.Kind == jsonrpc.KindResponse {
			ex.mu.Lock()
			ex.answered = true
			ex.mu.Unlock()
		}
		return msg, nil
	case <-ex.lost:
		return nil, client.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close implements clientconn.Exchange: a cancellation cancels the request's
// context.
func (ex *exchange) Close(cancel []byte) {
	ex.closeOnce.Do(func() {
		if cancel != nil {
			ex.cancel()
		}
		close(ex.done)
	})
}
