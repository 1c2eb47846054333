package actors

// The handle of a byte-stream connection: what its transport holds.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
)

// connHandle is the handle of a running connection, implementing
// tree.Conn. Its methods are safe for concurrent use.
type connHandle struct {
	s          *system
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
	// reqLog carries admissions and ends of requests from the reader and
	// the pump to the connection actor (conn_requests.go).
	reqLog requestLog

	mu  sync.Mutex
	err error
}

// WaitOutput waits until the connection's last write has returned, or ctx
// ends, and reports whether it did. After Done the writer accepts nothing
// more, but a write it had started may still be running: closing the
// output before it returns would cut a frame in half. A write that never
// returns (a blocked device) is bounded by the caller's ctx, typically the
// write timeout.
func (h *connHandle) WaitOutput(ctx context.Context) bool {
	select {
	case <-h.outputDone:
		return true
	case <-ctx.Done():
		return false
	}
}

// Done is closed once every actor of the connection has stopped.
func (h *connHandle) Done() <-chan struct{} { return h.done }

// Err returns why the connection ended: nil after a clean EOF drain. It is
// meaningful once Done is closed.
func (h *connHandle) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// ID returns the connection's path in the tree.
func (h *connHandle) ID() string { return h.pid.Id }

// ProtocolVersion returns the version a successful initialize negotiated on
// this connection, or "".
func (h *connHandle) ProtocolVersion() string {
	if v := h.version.Load(); v != nil {
		return *v
	}
	return ""
}

// Session returns the connection's initialize-era session (negotiated
// version, client capabilities, log level, server-to-client requests).
func (h *connHandle) Session() *dispatch.Session { return h.session }

// Stop ends the connection at once with err (nil is allowed): running
// work is cancelled and delivers nothing, the reader stops, nothing more
// is written.
func (h *connHandle) Stop(err error) { h.s.send(h.pid, &stopConn{err: err}) }

// Notify writes one complete frame (a server-to-client notification)
// through the connection's writer, after the frames already waiting, and
// returns once it has been written. It fails with ErrConnClosed when the
// connection is gone or ends normally before the frame's turn; with a
// *DeliveryError of kind ErrConnDown when the connection fails while the
// frame waits, or ErrOutputFailed when the frame's own write fails (which
// is terminal for the connection); and with ctx's error when ctx ends
// first, in which case the frame may still be written (it is dropped only
// if its turn comes after ctx ended).
func (h *connHandle) Notify(ctx context.Context, frame []byte) error {
	if h.stopped.Load() {
		return tree.ErrConnClosed
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
func (h *connHandle) classify(err error) error {
	if errors.Is(err, tree.ErrConnClosed) {
		return h.downErr()
	}
	return err
}

// downErr is the error for a frame that waited while the connection
// ended: closed after a normal end, down after an abnormal one.
func (h *connHandle) downErr() error {
	if err := h.Err(); err != nil {
		return &tree.DeliveryError{Kind: tree.ErrConnDown, Reason: err}
	}
	return tree.ErrConnClosed
}

// WaitHandlers waits until every application handler started for this
// connection has returned, or ctx ends, and returns the handlers still
// running then. Call it after Done to bound shutdown: a handler that
// ignores cancellation cannot be stopped, only reported and abandoned.
func (h *connHandle) WaitHandlers(ctx context.Context) []tree.HandlerInfo {
	return h.handlers.wait(ctx)
}

func (h *connHandle) setErr(err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
}

// StartConn starts a connection under the root supervisor.
func (s *system) StartConn(cfg tree.ConnConfig) (tree.Conn, error) {
	if cfg.Runtime == nil || cfg.Input == nil || cfg.Output == nil {
		return nil, errors.New("actors: a connection needs a Runtime, an Input and an Output")
	}
	if s.exec == nil {
		return nil, errors.New("actors: a connection needs the tree's executor")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "conn"
	}
	if cfg.MaxSubscriptions <= 0 {
		cfg.MaxSubscriptions = defaultConnMaxSubscriptions
	}
	h := &connHandle{s: s, name: cfg.Name, session: dispatch.NewSession(), outputDone: make(chan struct{})}
	props := s.busyProps(func() actor.Actor { return &connActor{s: s, cfg: cfg, h: h} })
	pid, done, err := s.spawnTop(props, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	h.pid, h.done = pid, done
	return h, nil
}

// defaultConnMaxSubscriptions bounds the subscription streams of a
// connection whose transport gives no bound.
const defaultConnMaxSubscriptions = 32
