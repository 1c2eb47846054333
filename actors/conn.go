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
	"github.com/snodo-go/snodo/dispatch/jsonrpc"
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

// ConnConfig describes one byte-stream connection (stdio, or any other
// stream carrying newline-delimited JSON-RPC).
type ConnConfig struct {
	// Prefix names the connection in the tree ("stdio" → snodo/stdio$1).
	Prefix string
	// Runtime serves the connection's messages.
	Runtime *dispatch.Runtime
	// Executor runs its requests.
	Executor *Executor
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
	// Transport is reported to the Runtime with each message.
	Transport dispatch.TransportKind
}

// Conn is the handle of a running connection.
type Conn struct {
	s       *System
	pid     *actor.PID
	done    <-chan struct{}
	stopped atomic.Bool
	version atomic.Pointer[string]

	mu  sync.Mutex
	err error
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

// Stop ends the connection at once with err (nil is allowed): running
// work is cancelled and delivers nothing, the reader stops, nothing more
// is written.
func (h *Conn) Stop(err error) { h.s.send(h.pid, &stopConn{err: err}) }

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
	h := &Conn{s: s}
	props := s.props(func() actor.Actor { return &connActor{s: s, cfg: cfg, h: h} })
	pid, done, err := s.spawnTop(props, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	h.pid, h.done = pid, done
	return h, nil
}

// Messages of the connection actor. Those sent by goroutines it owns or
// by executor callbacks may arrive after it stopped, so they skip
// dead-letter logging.
type (
	inboundCall   struct{ call *dispatch.Call }
	cancelRequest struct{ id jsonrpc.ID }
	readerEOF     struct{ err error }
	stopConn      struct{ err error }
)

func (*inboundCall) IgnoreDeadLetterLogging()   {}
func (*cancelRequest) IgnoreDeadLetterLogging() {}
func (*readerEOF) IgnoreDeadLetterLogging()     {}
func (*stopConn) IgnoreDeadLetterLogging()      {}
func (*flushed) IgnoreDeadLetterLogging()       {}
func (*writerFailed) IgnoreDeadLetterLogging()  {}

// connActor owns one connection: its reader goroutine, its writer actor,
// and a request actor per in-flight request.
type connActor struct {
	s   *System
	cfg ConnConfig
	h   *Conn

	ctx      context.Context
	cancel   context.CancelFunc
	scope    *Scope
	writer   *actor.PID
	requests map[jsonrpc.ID]*reqEntry
	eof      bool
	flushing bool
	finished bool
}

func (c *connActor) describe() (Kind, map[string]string) {
	attrs := map[string]string{
		"transport": c.cfg.Transport.String(),
		"requests":  itoa(len(c.requests)),
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
		c.ctx, c.cancel = context.WithCancel(context.Background())
		c.scope = c.cfg.Executor.NewScope(c.ctx)
		c.requests = map[jsonrpc.ID]*reqEntry{}
		w, err := ac.SpawnNamed(c.s.props(func() actor.Actor { return newWriter(c.s, c.cfg.Output, c.cfg.WriteTimeout) }), "writer")
		if err != nil {
			c.finish(ac, fmt.Errorf("actors: starting writer: %w", err))
			return
		}
		c.writer = w
		go c.readLoop(ac.Self(), w)
	case *inboundCall:
		c.admit(ac, m.call)
	case *cancelRequest:
		if e, ok := c.requests[m.id]; ok {
			delete(c.requests, m.id)
			e.ticket.Cancel()
			ac.Stop(e.pid)
			c.checkDrained(ac)
		}
	case *requestDone:
		if e, ok := c.requests[m.entry.id]; ok && e == m.entry {
			delete(c.requests, m.entry.id)
			ac.Stop(e.pid)
			c.checkDrained(ac)
		}
	case *readerEOF:
		c.eof = true
		if m.err != nil && !errors.Is(m.err, io.EOF) {
			c.s.logger.Warn("snodo: input failed; treating it as end of input", "connection", ac.Self().Id, "error", m.err)
		}
		c.checkDrained(ac)
	case *flushed:
		if c.eof {
			c.finish(ac, nil)
		}
	case *writerFailed:
		c.finish(ac, m.err)
	case *stopConn:
		c.finish(ac, m.err)
	case *actor.Terminated:
		if c.writer != nil && m.Who.Id == c.writer.Id && !c.finished {
			c.finish(ac, errors.New("actors: writer stopped unexpectedly"))
		}
	case *actor.Stopping:
		// Stopped by the parent (or the whole tree closing): the writer's
		// Terminated that follows is expected, not a failure.
		c.finished = true
		c.h.stopped.Store(true)
		if c.cancel != nil {
			c.cancel()
		}
	}
}

// admit submits an admitted call to the executor and starts its request
// actor.
func (c *connActor) admit(ac actor.Context, call *dispatch.Call) {
	if c.finished {
		return
	}
	id := call.Info.ID
	e := &reqEntry{id: id, method: call.Info.Method, started: time.Now()}
	timeout := c.cfg.RequestTimeout
	if timeout == 0 {
		timeout = c.cfg.Executor.Config().Timeout
	}
	if timeout > 0 {
		e.deadline = e.started.Add(timeout)
	}
	self, writer, rt := ac.Self(), c.writer, c.cfg.Runtime
	t, err := c.scope.Submit(id, Job{
		Timeout: c.cfg.RequestTimeout,
		Run:     func(ctx context.Context) any { return rt.Execute(ctx, call) },
		Done:    func(r Result) { c.deliver(self, writer, e, r) },
	})
	switch {
	case errors.Is(err, ErrDuplicate):
		c.write(ac, jsonrpc.EncodeError(id, errDuplicateID))
		return
	case errors.Is(err, ErrOverloaded):
		c.write(ac, jsonrpc.EncodeError(id, errCapacity))
		return
	case err != nil:
		return // scope closed: the connection is ending
	}
	e.ticket = t
	e.pid = ac.SpawnPrefix(c.s.props(func() actor.Actor { return &requestActor{entry: e} }), "req")
	c.requests[id] = e
}

// JSON-RPC errors of the execution layer.
var (
	errDuplicateID = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: a request with this id is already in flight")
	errCapacity    = jsonrpc.NewError(jsonrpc.CodeInternalError, "Server execution capacity exhausted")
	errTimedOut    = jsonrpc.NewError(jsonrpc.CodeInternalError, "Request execution timed out")
	errWorker      = jsonrpc.NewError(jsonrpc.CodeInternalError, "Request worker failed")
)

// deliver runs on the worker (or deadline timer) goroutine: it sends the
// response to the writer, then reports to the connection. The writer sees
// the frame before the connection can ask it to flush.
func (c *connActor) deliver(self, writer *actor.PID, e *reqEntry, r Result) {
	var frame []byte
	switch r.Status {
	case Completed:
		out, _ := r.Value.(dispatch.Outcome)
		if out.NegotiatedVersion != "" {
			v := out.NegotiatedVersion
			c.h.version.Store(&v)
		}
		frame = out.Frame
	case TimedOut:
		frame = jsonrpc.EncodeError(e.id, errTimedOut)
	case Failed:
		frame = jsonrpc.EncodeError(e.id, errWorker)
	}
	if frame != nil {
		c.s.send(writer, &writeFrame{frame: frame})
	}
	c.s.send(self, &requestDone{entry: e})
}

func (c *connActor) write(ac actor.Context, frame []byte) {
	ac.Send(c.writer, &writeFrame{frame: frame})
}

// checkDrained asks the writer to flush once input has ended and no
// request is in flight.
func (c *connActor) checkDrained(ac actor.Context) {
	if c.eof && !c.flushing && !c.finished && len(c.requests) == 0 {
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
	if c.cancel != nil {
		c.cancel()
	}
	ac.Send(ac.Parent(), &childFinished{pid: ac.Self()})
}

// readLoop is the connection's reader goroutine. It frames, decodes and
// admits messages (CPU work that needs no actor state), sends error frames
// straight to the writer, and passes admitted calls and cancellations to
// the connection.
func (c *connActor) readLoop(self, writer *actor.PID) {
	notifier := &connNotifier{s: c.s, writer: writer}
	for {
		frame, err := c.cfg.Input.ReadFrame()
		if c.h.stopped.Load() {
			return
		}
		switch {
		case errors.Is(err, ErrFrameTooLarge):
			c.s.send(writer, &writeFrame{frame: jsonrpc.EncodeError(jsonrpc.NullID, errTooLarge)})
			continue
		case err != nil:
			c.s.send(self, &readerEOF{err: err})
			return
		}
		c.handleFrame(frame, self, writer, notifier)
	}
}

var errTooLarge = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: message exceeds the maximum line length")

func (c *connActor) handleFrame(frame []byte, self, writer *actor.PID, notifier dispatch.Notifier) {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && de.Reply {
			c.s.send(writer, &writeFrame{frame: jsonrpc.EncodeError(de.ID, de.Err)})
		}
		return
	}
	switch msg.Kind {
	case jsonrpc.KindNotification:
		if msg.Method == "notifications/cancelled" {
			if id, ok := dispatch.CancelledRequestID(msg.Params); ok {
				c.s.send(self, &cancelRequest{id: id})
			}
		}
		return
	case jsonrpc.KindResponse:
		return
	}
	req := &dispatch.Request{
		Message:         msg,
		Transport:       c.cfg.Transport,
		ProtocolVersion: c.h.ProtocolVersion(),
		Notifier:        notifier,
	}
	call, out := c.cfg.Runtime.Admit(req)
	if call == nil {
		if out.Frame != nil {
			c.s.send(writer, &writeFrame{frame: out.Frame})
		}
		return
	}
	c.s.send(self, &inboundCall{call: call})
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
