package actors

// The connection's reader goroutine: it frames, decodes, admits and
// submits inbound messages, and writes the refusals itself.

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/mcpwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// readLoop is the connection's reader goroutine. It frames, decodes,
// admits and submits messages (work that needs no actor state), writing
// error responses itself and waiting for each, so a client that floods
// the connection with bad input is slowed to the output's pace. Admitted
// requests and cancellations go to the connection actor.
func (c *connActor) readLoop() {
	self := c.self
	rd := &reader{c: c, self: self, ack: make(chan error, 1), notifier: &connNotifier{box: c.out}}
	for {
		frame, err := c.cfg.Input.ReadFrame()
		if c.h.stopped.Load() {
			return
		}
		switch {
		case errors.Is(err, tree.ErrFrameTooLarge):
			if !rd.write(rpcwire.EncodeError(jsonrpc.NullID, errTooLarge)) {
				return
			}
			continue
		case err != nil:
			// No answer to a server-to-client request can arrive now.
			c.h.session.Close()
			c.s.send(self, &readerEOF{err: err})
			return
		}
		if !rd.handle(frame) {
			return
		}
	}
}

// reader is the state of the reader goroutine.
type reader struct {
	c        *connActor
	self     *actor.PID
	ack      chan error // reused: the reader waits for each of its writes
	notifier dispatch.Notifier
	// req is the Request of the message being admitted, reused from one
	// message to the next: the Runtime keeps no reference to a Request
	// once Admit has returned (the Call it makes holds copies).
	req dispatch.Request
}

// write writes an error frame and waits for it. It reports false when the
// connection is ending and the reader should stop.
func (r *reader) write(frame []byte) bool {
	r.c.out.post(&writeFrame{frame: frame, ack: r.ack})
	select {
	case err := <-r.ack:
		return err == nil
	case <-r.c.ctx.Done():
		return false
	}
}

// handle serves one inbound frame up to its submission to the executor.
func (r *reader) handle(frame []byte) bool {
	c := r.c
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && de.Reply {
			return r.write(rpcwire.EncodeError(de.ID, de.Err))
		}
		return true
	}
	req := &r.req
	*req = dispatch.Request{
		Message:         msg,
		Transport:       c.cfg.Transport,
		ProtocolVersion: c.h.ProtocolVersion(),
		Session:         c.h.session,
		Notifier:        r.notifier,
	}
	switch msg.Kind {
	case jsonrpc.KindNotification:
		if msg.Method == "notifications/cancelled" {
			if id, ok := mcpwire.CancelledRequestID(msg.Params); ok {
				c.s.send(r.self, &cancelRequest{id: id})
			}
		}
		c.cfg.Runtime.Admit(req) // notifications/initialized reaches the session
		return true
	case jsonrpc.KindResponse:
		// The answer to a server-to-client request; one matching nothing
		// is ignored.
		c.h.session.Deliver(msg)
		return true
	}
	call, out := c.cfg.Runtime.Admit(req)
	if call == nil {
		if out.Frame != nil {
			return r.write(out.Frame)
		}
		return true
	}
	if call.Info.Method == dispatch.MethodListen {
		return r.listen(call)
	}
	return r.submit(call)
}

// submit hands an admitted call to the executor under the connection's
// scope, keyed by its id, and logs it for the connection actor.
func (r *reader) submit(call *dispatch.Call) bool {
	c := r.c
	e := &reqEntry{id: call.Info.ID, method: call.Info.Method, started: time.Now(), conn: c, call: call}
	timeout := c.cfg.RequestTimeout
	if timeout == 0 {
		timeout = c.s.exec.Config().Timeout
	}
	if timeout > 0 {
		e.deadline = e.started.Add(timeout)
	}
	t, err := c.scope.Submit(e.id, executor.Job{Timeout: c.cfg.RequestTimeout, Received: e.started, Task: e})
	switch {
	case errors.Is(err, executor.ErrDuplicate):
		return r.write(rpcwire.EncodeError(e.id, errDuplicateID))
	case errors.Is(err, executor.ErrOverloaded):
		return r.write(rpcwire.EncodeError(e.id, errCapacity))
	case err != nil:
		return false // scope closed: the connection is ending
	}
	e.ticket = t
	c.logRequest(requestEvent{e: e})
	return true
}

// connNotifier writes request-scoped notifications through the writer and
// waits for the write, so they precede the response. A frame whose
// request has been cancelled by the time its turn comes is dropped.
type connNotifier struct{ box *outbox }

func (n *connNotifier) Notify(ctx context.Context, frame []byte) error {
	ack := make(chan error, 1)
	n.box.post(&writeFrame{frame: frame, ctx: ctx, ack: ack})
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listen takes the slots of an admitted subscriptions/listen (the
// connection's cap, the executor's shared cap, and its id among the
// requests in flight) and hands it to the connection actor, which starts
// its stream. Refusals are written by the reader itself, as for any
// request: over a cap -32603, a duplicate id -32600.
func (r *reader) listen(call *dispatch.Call) bool {
	c := r.c
	id := call.Info.ID
	releaseKey, err := c.scope.Reserve(id)
	switch {
	case errors.Is(err, executor.ErrDuplicate):
		return r.write(rpcwire.EncodeError(id, errDuplicateID))
	case err != nil:
		return false // scope closed: the connection is ending
	}
	if int(c.subCount.Load()) >= c.cfg.MaxSubscriptions {
		releaseKey()
		return r.write(rpcwire.EncodeError(id, errSubscriptionCap))
	}
	releaseSlot, ok := c.s.exec.AcquireSubscription()
	if !ok {
		releaseKey()
		return r.write(rpcwire.EncodeError(id, errSubscriptionCap))
	}
	c.subCount.Add(1)
	e := &subEntry{id: id, call: call, started: time.Now()}
	e.release = func() {
		releaseKey()
		releaseSlot()
		c.subCount.Add(-1)
	}
	c.s.send(r.self, &openSubscription{entry: e})
	return true
}
