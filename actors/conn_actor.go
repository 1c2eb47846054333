package actors

// The connection actor: it keeps the books of one byte-stream connection
// (requests and streams in flight, end of input) and decides when it is
// finished.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Messages of the connection actor. Those sent by goroutines it owns, by
// executor callbacks or by Notify callers may arrive after it stopped, so
// they skip dead-letter logging.
type (
	cancelRequest struct{ id jsonrpc.ID }
	readerEOF     struct{ err error }
	stopConn      struct{ err error }
	notifyFrame   struct{ f *writeFrame }
)

func (*cancelRequest) IgnoreDeadLetterLogging() {}
func (*readerEOF) IgnoreDeadLetterLogging()     {}
func (*stopConn) IgnoreDeadLetterLogging()      {}
func (*notifyFrame) IgnoreDeadLetterLogging()   {}
func (*flushed) IgnoreDeadLetterLogging()       {}
func (*writerFailed) IgnoreDeadLetterLogging()  {}

// connActor owns one connection: its reader goroutine, its writer actor,
// and a request actor per in-flight request. Reading, decoding, admission
// and execution happen on other goroutines; the actor only keeps the
// books (which requests are in flight, whether input has ended) and
// decides when the connection is finished.
type connActor struct {
	s   *system
	cfg tree.ConnConfig
	h   *connHandle

	// Set in Started, before the reader starts; read-only afterwards, so
	// the reader and the workers may read them.
	self   *actor.PID
	ctx    context.Context
	cancel context.CancelFunc
	scope  *executor.Scope
	writer *actor.PID
	out    *outbox // the writer's: producers post frames to it directly

	// requests is the actor's book of the requests in flight, kept from
	// the handle's request log (conn_requests.go).
	requests map[jsonrpc.ID]*reqEntry
	spawner  requestSpawner
	// later holds the requests in flight without an actor yet
	// (spawn_later.go); fire is its timer's callback, made once.
	later spawnLater[*reqEntry]
	fire  func()
	subs  map[jsonrpc.ID]*subEntry
	// subCount counts the streams holding a slot of the connection's cap:
	// the reader adds one before it sends openSubscription, a stream's
	// release takes it back. Only the reader adds, so its check of the
	// cap cannot race.
	subCount atomic.Int32
	// dying counts request actors told to stop whose Terminated has not
	// arrived. The connection asks to be stopped only when it is zero:
	// stopping it sends Stop to every child still listed, and a Stop that
	// reaches a child already gone is a dead letter.
	dying      map[string]bool
	eof        bool
	flushing   bool
	finished   bool
	released   bool
	writerGone bool

	// Session change notifications (conn_session.go).
	sessWake    atomic.Bool // a sessionWake is on its way
	sessWriting bool        // one is with the writer
}

func (c *connActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{
		"transport":        c.cfg.Transport.String(),
		"requests":         itoa(len(c.requests)),
		"subscriptions":    itoa(len(c.subs)),
		"maxSubscriptions": itoa(c.cfg.MaxSubscriptions),
	}
	if c.cfg.Name != "" {
		attrs["name"] = c.cfg.Name
	}
	if v := c.h.ProtocolVersion(); v != "" {
		attrs["protocolVersion"] = v
	}
	if c.eof {
		attrs["state"] = "draining"
	}
	return tree.KindConnection, attrs
}

func (c *connActor) Receive(ac actor.Context) {
	// Built with busyProps: no middleware answers inspection for it.
	defer c.s.logPanic(ac)
	if c.s.leafReceive(ac, c) {
		return
	}
	switch m := ac.Message().(type) {
	case *actor.Started:
		c.self = ac.Self()
		c.ctx, c.cancel = context.WithCancel(c.s.base)
		c.scope = c.s.exec.NewScope(c.ctx)
		c.requests = map[jsonrpc.ID]*reqEntry{}
		c.subs = map[jsonrpc.ID]*subEntry{}
		c.dying = map[string]bool{}
		wr := newWriter(c.s, c.cfg.Output, c.cfg.WriteTimeout).withPumpExited(c.h.outputDone)
		w, err := ac.SpawnNamed(c.s.busyProps(func() actor.Actor { return wr }), "writer")
		if err != nil {
			close(c.h.outputDone) // no writer, so nothing can be written
			c.finish(ac, fmt.Errorf("actors: starting writer: %w", err))
			return
		}
		c.writer, c.out = w, wr.box
		c.h.session.SetWake(c.sessionWaker())
		go c.readLoop()
	case *drainRequests:
		c.bookRequests(ac)
	case *spawnDue:
		if !c.finished {
			c.later.tick(c.s.spawnDelay(), c.fire, func(e *reqEntry) { c.spawnRequest(ac, e) })
		}
	case *sessionWake:
		c.sessWake.Store(false)
		c.pumpSession()
	case *sessionWritten:
		c.sessWriting = false
		if m.err == nil {
			c.pumpSession()
		}
	case *cancelRequest:
		c.bookRequests(ac) // the request may be logged and not booked yet
		if e, ok := c.requests[m.id]; ok {
			delete(c.requests, m.id)
			e.cancelled.Store(true)
			if e.pid == nil { // mutation: cancel-reaches-request-without-actor
				// A request in flight for less than the spawn delay has no
				// actor whose stop would cancel its job.
				e.ticket.Cancel()
			}
			c.stopRequest(ac, e)
			c.checkDrained(ac)
		} else if e, ok := c.subs[m.id]; ok {
			// The client ends its stream: nothing more is written for it.
			delete(c.subs, m.id)
			e.cancelled.Store(true)
			c.stopChild(ac, e.pid)
			c.checkDrained(ac)
		}
	case *openSubscription:
		c.openSubscription(ac, m.entry)
	case *subscriptionDone:
		if e, ok := c.subs[m.entry.id]; ok && e == m.entry {
			delete(c.subs, m.entry.id)
			c.stopChild(ac, e.pid)
			c.checkDrained(ac)
		}
	case *notifyFrame:
		if c.finished || c.writer == nil {
			ack(m.f, tree.ErrConnClosed)
			return
		}
		c.out.post(m.f)
	case *readerEOF:
		c.bookRequests(ac)
		c.eof = true
		if m.err != nil && !errors.Is(m.err, io.EOF) {
			c.s.logger.Warn("snodo: input failed; treating it as end of input", "connection", ac.Self().Id, "error", m.err)
		}
		// Open streams end gracefully: each writes its final result, and
		// the connection finishes once they have.
		for _, e := range c.subs {
			ac.Send(e.pid, &completeSubscription{})
		}
		c.checkDrained(ac)
	case *flushed:
		if c.eof {
			c.finish(ac, nil)
		}
	case *writerFailed:
		c.finish(ac, &tree.DeliveryError{Kind: tree.ErrOutputFailed, Reason: m.err})
	case *stopConn:
		c.finish(ac, m.err)
	case *actor.Terminated:
		if c.writer != nil && m.Who.Id == c.writer.Id {
			c.writerGone = true // nothing more may be sent to it
			if !c.finished {
				c.finish(ac, errors.New("actors: writer stopped unexpectedly"))
			}
			return
		}
		delete(c.dying, m.Who.Id)
		c.s.stopHandled(m.Who.Id)
		c.release(ac)
	case *actor.Stopping:
		// Stopped by the parent: after finish, or because the tree is
		// closing. The children's Terminated that follow are expected, and
		// the parent needs no more asking.
		if !c.finished {
			c.h.setErr(tree.ErrConnStopped)
		}
		c.finished, c.released = true, true
		c.h.stopped.Store(true)
		c.cancelWork()
	}
}

// cancelWork drops every job of the connection without delivery: the
// scope is closed here rather than by its context's callback, so no job
// can complete and be delivered in between. Then the context ends, which
// cancels the handlers, stops the reader, and releases anything waiting
// on the connection.
func (c *connActor) cancelWork() {
	c.later.stop()
	clear(c.h.reqLog.take()) // the handle may outlive the connection: hold no request
	if c.scope != nil {
		c.scope.Close()
	}
	if c.cancel != nil {
		c.cancel()
	}
	c.h.session.Close() // server-to-client requests still waiting fail
}

// record books a request the reader admitted, unless the request has
// already been delivered (its worker can beat the reader's log entry)
// or the connection is finishing. Its request actor is spawned later, if
// the request is still in flight after a moment (spawn_later.go).
func (c *connActor) record(ac actor.Context, e *reqEntry) {
	if c.finished || e.done.Load() {
		return
	}
	if old, ok := c.requests[e.id]; ok {
		// The same id was reused after its first request was delivered
		// but before the end of that request was booked.
		c.stopRequest(ac, old)
	}
	c.requests[e.id] = e
	if c.fire == nil {
		self, s := c.self, c.s
		c.fire = func() { s.send(self, spawnTick) }
	}
	c.later.add(e, c.s.spawnDelay(), c.fire)
}

// spawnRequest starts the actor of a request still in flight that has
// none yet.
func (c *connActor) spawnRequest(ac actor.Context, e *reqEntry) {
	if c.finished || e.pid != nil || c.requests[e.id] != e || e.done.Load() {
		return
	}
	e.pid = c.spawner.spawn(c.s, ac, &requestActor{s: c.s, entry: e})
}

// materialize spawns the actor of every request in flight that has none
// yet, so an inspection of the tree shows them all.
func (c *connActor) materialize(ac actor.Context) {
	c.bookRequests(ac)
	for _, e := range c.requests {
		c.spawnRequest(ac, e)
	}
}

// stopRequest stops the actor of a request the connection no longer
// tracks, if it has one. One without an actor needs nothing: whoever
// dropped it from the books has cancelled or delivered its job.
func (c *connActor) stopRequest(ac actor.Context, e *reqEntry) {
	if e.pid != nil {
		c.stopChild(ac, e.pid)
	}
}

// stopChild stops a request or subscription actor the connection no
// longer tracks. Once the connection has asked to be stopped it leaves
// them all to that stop, which would otherwise race with this one.
func (c *connActor) stopChild(ac actor.Context, pid *actor.PID) {
	if c.released {
		return
	}
	c.dying[pid.Id] = true
	c.s.stopRequested(pid.Id)
	ac.Stop(pid)
}

// JSON-RPC errors of the execution layer.
var (
	errDuplicateID = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: a request with this id is already in flight"}
	errCapacity    = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Server execution capacity exhausted"}
	errTimedOut    = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request execution timed out"}
	errWorker      = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request worker failed"}
	errTooLarge    = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: message exceeds the maximum line length"}
)

// deliver runs once per request that was not cancelled: on the worker's
// goroutine for a completed or failed job, on the deadline timer's for a
// timed-out one. It posts the response to the writer's outbox and
// returns: the request ends (frameWritten) once its frame is written or
// dropped. A worker waits for the write only when the outbox holds more
// than maxWaitingBytes already, so output that is slow slows the workers,
// not memory; the timer never waits.
func (c *connActor) deliver(e *reqEntry, r executor.Result) {
	var frame []byte
	switch r.Status {
	case executor.Completed:
		out, _ := r.Value.(dispatch.Outcome)
		if out.NegotiatedVersion != "" {
			// Recorded before the response is written, so a message the
			// client sends after reading the response is served under it.
			v := out.NegotiatedVersion
			c.h.version.Store(&v)
		}
		frame = out.Frame
	case executor.Failed:
		frame = rpcwire.EncodeError(e.id, errWorker)
	case executor.TimedOut:
		frame = rpcwire.EncodeError(e.id, errTimedOut)
	}
	if frame == nil {
		e.frameWritten(nil)
		return
	}
	e.response = writeFrame{frame: frame, cancelled: &e.cancelled, owner: e}
	if r.Status == executor.TimedOut {
		c.out.post(&e.response)
		return
	}
	if wait := c.out.postResponse(&e.response); wait != nil {
		select {
		case <-wait:
			// The outbox acknowledges a frame once: the channel is empty
			// and no one else holds it.
			ackChans.Put(wait)
		case <-c.ctx.Done(): // the outbox may still acknowledge: not reused
		}
	}
}

// checkDrained asks the writer to flush once input has ended and no
// request or stream is in flight.
func (c *connActor) checkDrained(ac actor.Context) {
	if c.eof && !c.flushing && !c.finished && len(c.requests) == 0 && len(c.subs) == 0 {
		c.flushing = true
		ac.Send(c.writer, &flush{})
	}
}

// finish ends the connection: work is cancelled, the reader told to stop,
// and the root asked to stop this actor (children report, parents stop).
func (c *connActor) finish(ac actor.Context, err error) {
	if c.finished {
		return
	}
	c.finished = true
	c.h.setErr(err)
	c.h.stopped.Store(true)
	c.cancelWork()
	if c.writer != nil && !c.writerGone {
		ac.Send(c.writer, &closeOutput{})
	}
	c.release(ac)
}

// release asks the root to stop the finished connection once no request
// actor is still on its way out.
func (c *connActor) release(ac actor.Context) {
	if c.finished && !c.released && len(c.dying) == 0 {
		c.released = true
		ac.Send(ac.Parent(), &childFinished{pid: ac.Self()})
	}
}

// openSubscription starts the actor of a stream the reader admitted,
// unless the connection is finishing.
func (c *connActor) openSubscription(ac actor.Context, e *subEntry) {
	if c.finished {
		e.free()
		return
	}
	if old, ok := c.subs[e.id]; ok {
		// Unreachable while the id is reserved; kept as a guard.
		c.stopChild(ac, old.pid)
	}
	e.pid = ac.SpawnPrefix(c.s.props(func() actor.Actor {
		return &connSubscriptionActor{s: c.s, rt: c.cfg.Runtime, ctx: c.ctx, out: c.out, conn: c.self, e: e}
	}), "sub")
	c.subs[e.id] = e
	if c.eof {
		ac.Send(e.pid, &completeSubscription{})
	}
}
