package actors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/jsonrpc"
)

// FrameReader yields a connection's inbound frames one at a time. It is
// used by one goroutine only.
type FrameReader interface {
	// ReadFrame returns the next frame without its delimiter. For a frame
	// over the transport's limit it discards the frame and returns an
	// error wrapping ErrFrameTooLarge; at the end of input it returns
	// io.EOF. The returned slice may be retained by the caller.
	ReadFrame() ([]byte, error)
}

// ErrFrameTooLarge reports an inbound frame over the transport's limit.
var ErrFrameTooLarge = errors.New("actors: frame too large")

// ErrConnStopped is why a connection ended when its supervisor stopped it
// (the tree was closed) rather than the connection finishing by itself.
var ErrConnStopped = errors.New("actors: connection stopped by its supervisor")

// DefaultConnMaxSubscriptions bounds the subscription streams one
// byte-stream connection may hold open.
const DefaultConnMaxSubscriptions = 32

// ConnConfig describes one byte-stream connection (stdio, or any other
// stream carrying newline-delimited JSON-RPC).
type ConnConfig struct {
	// Prefix names the connection in the tree ("stdio" → snodo/stdio$1).
	Prefix string
	// Name, when set, is shown in the tree as the connection's "name"
	// attribute.
	Name string
	// Runtime serves the connection's messages.
	Runtime *dispatch.Runtime
	// Executor runs its requests.
	Executor *executor.Executor
	// Input yields inbound frames. The connection reads it from a
	// goroutine it owns; it never closes it.
	Input FrameReader
	// Output receives outbound frames. The connection never closes it.
	Output io.Writer
	// WriteTimeout bounds each write; a write past it is terminal.
	// Default 5 s.
	WriteTimeout time.Duration
	// RequestTimeout overrides the executor's default deadline.
	RequestTimeout time.Duration
	// MaxSubscriptions bounds the subscriptions/listen streams open at
	// once on the connection (default 32); each also takes a slot of the
	// executor's shared subscription cap. A listen over either gets
	// -32603. Each open stream is a child actor of the connection, beside
	// the request actors, and holds no execution slot.
	MaxSubscriptions int
	// Transport is reported to the Runtime with each message.
	Transport dispatch.TransportKind
}

// Conn is the handle of a running connection. Its methods are safe for
// concurrent use.
type Conn struct {
	s          *System
	name       string
	pid        *actor.PID
	done       <-chan struct{}
	outputDone chan struct{} // closed when the writer's pump has returned
	stopped    atomic.Bool
	version    atomic.Pointer[string]
	// session is the connection's initialize-era state: on a byte
	// stream the connection is the session.
	session *dispatch.Session

	handlers handlerSet

	mu  sync.Mutex
	err error
}

// WaitOutput waits until the connection's last write has returned, or ctx
// ends, and reports whether it did. After Done the writer accepts nothing
// more, but a write it had started may still be running: closing the
// output before it returns would cut a frame in half. A write that never
// returns (a blocked device) is bounded by the caller's ctx, typically the
// write timeout.
func (h *Conn) WaitOutput(ctx context.Context) bool {
	select {
	case <-h.outputDone:
		return true
	case <-ctx.Done():
		return false
	}
}

// Done is closed once every actor of the connection has stopped.
func (h *Conn) Done() <-chan struct{} { return h.done }

// Err returns why the connection ended: nil after a clean EOF drain. It is
// meaningful once Done is closed.
func (h *Conn) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// ID returns the connection's path in the tree.
func (h *Conn) ID() string { return h.pid.Id }

// ProtocolVersion returns the version a successful initialize negotiated on
// this connection, or "".
func (h *Conn) ProtocolVersion() string {
	if v := h.version.Load(); v != nil {
		return *v
	}
	return ""
}

// Session returns the connection's initialize-era session (negotiated
// version, client capabilities, log level, server-to-client requests).
func (h *Conn) Session() *dispatch.Session { return h.session }

// Stop ends the connection at once with err (nil is allowed): running
// work is cancelled and delivers nothing, the reader stops, nothing more
// is written.
func (h *Conn) Stop(err error) { h.s.send(h.pid, &stopConn{err: err}) }

// Notify writes one complete frame (a server-to-client notification)
// through the connection's writer, after the frames already waiting, and
// returns once it has been written. It fails with ErrConnClosed when the
// connection is gone or ends normally before the frame's turn; with a
// *DeliveryError of kind ErrConnDown when the connection fails while the
// frame waits, or ErrOutputFailed when the frame's own write fails (which
// is terminal for the connection); and with ctx's error when ctx ends
// first, in which case the frame may still be written (it is dropped only
// if its turn comes after ctx ended).
func (h *Conn) Notify(ctx context.Context, frame []byte) error {
	if h.stopped.Load() {
		return ErrConnClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ack := make(chan error, 1)
	h.s.send(h.pid, &notifyFrame{f: &writeFrame{frame: frame, ctx: ctx, ack: ack}})
	select {
	case err := <-ack:
		return h.classify(err)
	case <-ctx.Done():
		return ctx.Err()
	case <-h.done:
		select {
		case err := <-ack:
			return h.classify(err)
		default:
			return h.downErr()
		}
	}
}

// classify turns a writer acknowledgement into what a Notify caller sees.
func (h *Conn) classify(err error) error {
	if errors.Is(err, ErrConnClosed) {
		return h.downErr()
	}
	return err
}

// downErr is the error for a frame that waited while the connection
// ended: closed after a normal end, down after an abnormal one.
func (h *Conn) downErr() error {
	if err := h.Err(); err != nil {
		return &DeliveryError{Kind: ErrConnDown, Reason: err}
	}
	return ErrConnClosed
}

// WaitHandlers waits until every application handler started for this
// connection has returned, or ctx ends, and returns the handlers still
// running then. Call it after Done to bound shutdown: a handler that
// ignores cancellation cannot be stopped, only reported and abandoned.
func (h *Conn) WaitHandlers(ctx context.Context) []HandlerInfo { return h.handlers.wait(ctx) }

func (h *Conn) setErr(err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
}

// StartConn starts a connection under the root supervisor.
func (s *System) StartConn(cfg ConnConfig) (*Conn, error) {
	if cfg.Runtime == nil || cfg.Executor == nil || cfg.Input == nil || cfg.Output == nil {
		return nil, errors.New("actors: ConnConfig needs Runtime, Executor, Input and Output")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "conn"
	}
	if cfg.MaxSubscriptions <= 0 {
		cfg.MaxSubscriptions = DefaultConnMaxSubscriptions
	}
	h := &Conn{s: s, name: cfg.Name, session: dispatch.NewSession(), outputDone: make(chan struct{})}
	props := s.props(func() actor.Actor { return &connActor{s: s, cfg: cfg, h: h} })
	pid, done, err := s.spawnTop(props, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	h.pid, h.done = pid, done
	return h, nil
}

// Messages of the connection actor. Those sent by goroutines it owns, by
// executor callbacks or by Notify callers may arrive after it stopped, so
// they skip dead-letter logging.
type (
	// admitted: the reader submitted a request to the executor.
	admitted      struct{ entry *reqEntry }
	cancelRequest struct{ id jsonrpc.ID }
	readerEOF     struct{ err error }
	stopConn      struct{ err error }
	notifyFrame   struct{ f *writeFrame }
)

func (*admitted) IgnoreDeadLetterLogging()      {}
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
	s   *System
	cfg ConnConfig
	h   *Conn

	// Set in Started, before the reader starts; read-only afterwards, so
	// the reader and the workers may read them.
	self   *actor.PID
	ctx    context.Context
	cancel context.CancelFunc
	scope  *executor.Scope
	writer *actor.PID

	requests map[jsonrpc.ID]*reqEntry
	spawner  requestSpawner
	subs     map[jsonrpc.ID]*subEntry
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

func (c *connActor) describe() (Kind, map[string]string) {
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
	return KindConnection, attrs
}

func (c *connActor) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case *actor.Started:
		c.self = ac.Self()
		c.ctx, c.cancel = context.WithCancel(context.Background())
		c.scope = c.cfg.Executor.NewScope(c.ctx)
		c.requests = map[jsonrpc.ID]*reqEntry{}
		c.subs = map[jsonrpc.ID]*subEntry{}
		c.dying = map[string]bool{}
		w, err := ac.SpawnNamed(c.s.props(func() actor.Actor {
			return newWriter(c.s, c.cfg.Output, c.cfg.WriteTimeout).withPumpExited(c.h.outputDone)
		}), "writer")
		if err != nil {
			close(c.h.outputDone) // no writer, so nothing can be written
			c.finish(ac, fmt.Errorf("actors: starting writer: %w", err))
			return
		}
		c.writer = w
		c.h.session.SetWake(c.sessionWaker())
		go c.readLoop()
	case *admitted:
		c.record(ac, m.entry)
	case *sessionWake:
		c.sessWake.Store(false)
		c.pumpSession()
	case *sessionWritten:
		c.sessWriting = false
		if m.err == nil {
			c.pumpSession()
		}
	case *cancelRequest:
		if e, ok := c.requests[m.id]; ok {
			delete(c.requests, m.id)
			e.cancelled.Store(true)
			e.ticket.Cancel()
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
	case *requestDone:
		if e, ok := c.requests[m.entry.id]; ok && e == m.entry {
			delete(c.requests, m.entry.id)
			c.stopRequest(ac, e)
			c.checkDrained(ac)
		}
	case *notifyFrame:
		if c.finished || c.writer == nil {
			ack(m.f, ErrConnClosed)
			return
		}
		ac.Send(c.writer, m.f)
	case *readerEOF:
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
		c.finish(ac, fmt.Errorf("%w: %w", ErrOutputFailed, m.err))
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
		c.release(ac)
	case *actor.Stopping:
		// Stopped by the parent: after finish, or because the tree is
		// closing. The children's Terminated that follow are expected, and
		// the parent needs no more asking.
		if !c.finished {
			c.h.setErr(ErrConnStopped)
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
	if c.scope != nil {
		c.scope.Close()
	}
	if c.cancel != nil {
		c.cancel()
	}
	c.h.session.Close() // server-to-client requests still waiting fail
}

// record starts the request actor of a request the reader admitted,
// unless the request has already been delivered (its worker can beat the
// admitted message here) or the connection is finishing.
func (c *connActor) record(ac actor.Context, e *reqEntry) {
	if c.finished || e.done.Load() {
		return
	}
	if old, ok := c.requests[e.id]; ok {
		// The same id was reused after its first request was delivered
		// but before that request's requestDone arrived.
		c.stopRequest(ac, old)
	}
	e.pid = c.spawner.spawn(c.s, ac, &requestActor{s: c.s, entry: e})
	c.requests[e.id] = e
}

// stopRequest stops a request actor the connection no longer tracks.
func (c *connActor) stopRequest(ac actor.Context, e *reqEntry) { c.stopChild(ac, e.pid) }

// stopChild stops a request or subscription actor the connection no
// longer tracks. Once the connection has asked to be stopped it leaves
// them all to that stop, which would otherwise race with this one.
func (c *connActor) stopChild(ac actor.Context, pid *actor.PID) {
	if c.released {
		return
	}
	c.dying[pid.Id] = true
	ac.Stop(pid)
}

// JSON-RPC errors of the execution layer.
var (
	errDuplicateID = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: a request with this id is already in flight")
	errCapacity    = jsonrpc.NewError(jsonrpc.CodeInternalError, "Server execution capacity exhausted")
	errTimedOut    = jsonrpc.NewError(jsonrpc.CodeInternalError, "Request execution timed out")
	errWorker      = jsonrpc.NewError(jsonrpc.CodeInternalError, "Request worker failed")
	errTooLarge    = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: message exceeds the maximum line length")
)

// deliver runs once per request that was not cancelled: on the worker's
// goroutine for a completed or failed job, on the deadline timer's for a
// timed-out one. On the worker it waits for the response's write, so the
// job's executor slot stays taken until its response is out: output that
// is slow slows the workers, not memory. The timer must not block, so a
// timeout's error frame is sent without waiting.
func (c *connActor) deliver(e *reqEntry, r executor.Result) {
	switch r.Status {
	case executor.Completed:
		out, _ := r.Value.(dispatch.Outcome)
		if out.NegotiatedVersion != "" {
			// Recorded before the response is written, so a message the
			// client sends after reading the response is served under it.
			v := out.NegotiatedVersion
			c.h.version.Store(&v)
		}
		if out.Frame != nil {
			c.writeWait(out.Frame, &e.cancelled)
		}
	case executor.Failed:
		c.writeWait(jsonrpc.EncodeError(e.id, errWorker), &e.cancelled)
	case executor.TimedOut:
		c.s.send(c.writer, &writeFrame{frame: jsonrpc.EncodeError(e.id, errTimedOut), cancelled: &e.cancelled})
	}
	e.done.Store(true)
	c.s.send(c.self, &requestDone{entry: e})
}

// writeWait writes frame through the writer and waits for the write, or
// for the connection to end. It reports whether the frame was written.
func (c *connActor) writeWait(frame []byte, cancelled *atomic.Bool) bool {
	ack := make(chan error, 1)
	c.s.send(c.writer, &writeFrame{frame: frame, cancelled: cancelled, ack: ack})
	select {
	case err := <-ack:
		return err == nil
	case <-c.ctx.Done():
		return false
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

// readLoop is the connection's reader goroutine. It frames, decodes,
// admits and submits messages (work that needs no actor state), writing
// error responses itself and waiting for each, so a client that floods
// the connection with bad input is slowed to the output's pace. Admitted
// requests and cancellations go to the connection actor.
func (c *connActor) readLoop() {
	self := c.self
	rd := &reader{c: c, self: self, ack: make(chan error, 1), notifier: &connNotifier{s: c.s, writer: c.writer}}
	for {
		frame, err := c.cfg.Input.ReadFrame()
		if c.h.stopped.Load() {
			return
		}
		switch {
		case errors.Is(err, ErrFrameTooLarge):
			if !rd.write(jsonrpc.EncodeError(jsonrpc.NullID, errTooLarge)) {
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
}

// write writes an error frame and waits for it. It reports false when the
// connection is ending and the reader should stop.
func (r *reader) write(frame []byte) bool {
	r.c.s.send(r.c.writer, &writeFrame{frame: frame, ack: r.ack})
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
			return r.write(jsonrpc.EncodeError(de.ID, de.Err))
		}
		return true
	}
	req := &dispatch.Request{
		Message:         msg,
		Transport:       c.cfg.Transport,
		ProtocolVersion: c.h.ProtocolVersion(),
		Session:         c.h.session,
		Notifier:        r.notifier,
	}
	switch msg.Kind {
	case jsonrpc.KindNotification:
		if msg.Method == "notifications/cancelled" {
			if id, ok := dispatch.CancelledRequestID(msg.Params); ok {
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
// scope, keyed by its id, and tells the connection actor about it.
func (r *reader) submit(call *dispatch.Call) bool {
	c := r.c
	e := &reqEntry{id: call.Info.ID, method: call.Info.Method, started: time.Now()}
	timeout := c.cfg.RequestTimeout
	if timeout == 0 {
		timeout = c.cfg.Executor.Config().Timeout
	}
	if timeout > 0 {
		e.deadline = e.started.Add(timeout)
	}
	execute, handlers := c.cfg.Runtime.Execute, &c.h.handlers
	t, err := c.scope.Submit(e.id, executor.Job{
		Timeout: c.cfg.RequestTimeout,
		Run: func(ctx context.Context) any {
			handlers.add(e)
			defer handlers.remove(e)
			return execute(ctx, call)
		},
		Done: func(res executor.Result) { c.deliver(e, res) },
	})
	switch {
	case errors.Is(err, executor.ErrDuplicate):
		return r.write(jsonrpc.EncodeError(e.id, errDuplicateID))
	case errors.Is(err, executor.ErrOverloaded):
		return r.write(jsonrpc.EncodeError(e.id, errCapacity))
	case err != nil:
		return false // scope closed: the connection is ending
	}
	e.ticket = t
	c.s.send(r.self, &admitted{entry: e})
	return true
}

// connNotifier writes request-scoped notifications through the writer and
// waits for the write, so they precede the response. A frame whose
// request has been cancelled by the time its turn comes is dropped.
type connNotifier struct {
	s      *System
	writer *actor.PID
}

func (n *connNotifier) Notify(ctx context.Context, frame []byte) error {
	ack := make(chan error, 1)
	n.s.send(n.writer, &writeFrame{frame: frame, ctx: ctx, ack: ack})
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
		return r.write(jsonrpc.EncodeError(id, errDuplicateID))
	case err != nil:
		return false // scope closed: the connection is ending
	}
	if int(c.subCount.Load()) >= c.cfg.MaxSubscriptions {
		releaseKey()
		return r.write(jsonrpc.EncodeError(id, errSubscriptionCap))
	}
	releaseSlot, ok := c.cfg.Executor.AcquireSubscription()
	if !ok {
		releaseKey()
		return r.write(jsonrpc.EncodeError(id, errSubscriptionCap))
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
		return &connSubscriptionActor{s: c.s, rt: c.cfg.Runtime, ctx: c.ctx, writer: c.writer, conn: c.self, e: e}
	}), "sub")
	c.subs[e.id] = e
	if c.eof {
		ac.Send(e.pid, &completeSubscription{})
	}
}
