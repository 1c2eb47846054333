package streamablehttp

// The Handler: its construction, its node in the tree, drain and close.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/supervisor"
)

// Handler serves MCP over Streamable HTTP. It is an [http.Handler] to
// mount in an application's mux (see [NewHandler]), and it offers the
// host-neutral [Handler.Prepare], [Handler.Execute] and [Handler.Handle]
// for other servers. The native listener ([Listen]) is built on one.
//
// A Handler is a node of kind handler in the supervision tree (kind
// listener under the native listener), with a request actor for each
// request in flight.
type Handler struct {
	rt          *dispatch.Runtime
	o           options
	path        string // "" checks no path
	originRules []hostRule
	hostRules   []hostRule // nil: Host not checked

	sup     *supervisor.Supervisor
	ownsSup bool
	sys     tree.System // sup's
	exec    *executor.Executor
	host    tree.Host

	sessions *sessionStore // nil: sessions off

	sink instrumentation.Sink // the Runtime's, for refusals; nil: none

	// boundAllWrites: the native listener bounds every write with the
	// write timeout; a mounted Handler bounds only event-stream writes.
	boundAllWrites bool

	draining  atomic.Bool
	drainCh   chan struct{} // closed when draining starts: streams complete
	drainOnce sync.Once
	active    tracker // exchanges from Prepare to their end

	closeOnce sync.Once
	closeErr  error
}

// NewHandler returns a Handler serving rt, to mount in an application's
// mux or router:
//
//	mux.Handle("/mcp", requireToken(h))
//
// It applies the same checks as the native listener (media types,
// mirrored headers, Origin, optionally Host) and the same JSON, progress
// and subscription event-stream lifecycles. The application's server owns
// TLS, connection and head timeouts; the handler bounds the body (size
// and time) and each event-stream write. Close the Handler when the
// application stops serving it.
//
// A client disconnect cancels the request as soon as net/http ends the
// request's context: over HTTP/1.1 when the connection closes while the
// handler runs, over HTTP/2 when the client resets the stream or the
// connection goes away. HTTP/2 flow control differs in one way: a client
// that keeps its stream open but stops reading is noticed only when a
// write blocks past the write timeout, and a body sent in small frames is
// checked against the body timeout each time a read returns.
func NewHandler(rt *dispatch.Runtime, opts ...HandlerOption) (*Handler, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt.applyHandler(&o); err != nil {
			return nil, fmt.Errorf("streamablehttp: %w", err)
		}
	}
	path := ""
	if o.pathSet {
		path = o.path
	}
	h, err := newHandler(rt, o, path)
	if err != nil {
		return nil, err
	}
	if err := h.start(tree.HostConfig{Prefix: "handler", Kind: tree.KindHandler}); err != nil {
		return nil, err
	}
	return h, nil
}

// newHandler builds a Handler, its supervision tree and executor; start
// then puts its node in the tree.
func newHandler(rt *dispatch.Runtime, o options, path string) (*Handler, error) {
	if rt == nil {
		return nil, errors.New("streamablehttp: nil Runtime")
	}
	origins, err := parseHostRules(o.originHosts)
	if err != nil {
		return nil, err
	}
	h := &Handler{rt: rt, o: o, path: path, originRules: origins, drainCh: make(chan struct{}), sink: rt.Instrumentation()}
	if o.sessions != nil {
		h.sessions = newSessionStore(*o.sessions)
	}
	if len(o.hosts) > 0 {
		if h.hostRules, err = parseHostRules(o.hosts); err != nil {
			return nil, err
		}
	}
	h.sup = o.sup
	if h.sup == nil {
		if h.sup, err = supervisor.New(rt); err != nil {
			return nil, err
		}
		h.ownsSup = true
	}
	h.sys = tree.SystemOf(h.sup)
	h.exec = h.sys.Executor()
	return h, nil
}

// start puts the handler's node in the tree. On failure the supervision
// tree the handler created is closed.
func (h *Handler) start(hc tree.HostConfig) error {
	if hc.Attrs == nil {
		hc.Attrs = h.describe
	}
	var err error
	if h.host, err = h.sys.StartHost(hc); err != nil {
		_ = h.closeSupervisor()
		return fmt.Errorf("streamablehttp: %w", err)
	}
	return nil
}

func (h *Handler) describe(attrs map[string]string) {
	attrs["transport"] = "streamable-http"
	if h.path != "" {
		attrs["path"] = h.path
	}
	if h.draining.Load() {
		attrs["state"] = "draining"
	}
	if h.sessions != nil {
		attrs["sessions"] = strconv.Itoa(h.sessions.live())
	}
}

// beginDrain makes new requests get 503 and asks open streams to complete.
func (h *Handler) beginDrain() {
	h.drainOnce.Do(func() {
		h.draining.Store(true)
		close(h.drainCh)
	})
}

// Shutdown drains the handler: new requests get 503, open subscription
// streams are asked to complete, and requests in flight may finish until
// ctx ends. Then it closes the handler as [Handler.Close] does, and
// returns ctx's error if requests were still in flight.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.beginDrain()
	err := h.active.wait(ctx)
	return errors.Join(err, h.Close())
}

// Close stops the handler at once: requests in flight are cancelled and
// get nothing more, later requests get 503. It waits (at most the grace
// period) for requests to leave the handler, and closes the supervision
// tree the handler created, if any. Close is idempotent.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() {
		h.beginDrain()
		if h.sessions != nil {
			h.sessions.closeAll()
		}
		h.host.Finish()
		<-h.host.Done()
		ctx, cancel := context.WithTimeout(context.Background(), h.o.limits.GracePeriod)
		defer cancel()
		if err := h.active.wait(ctx); err != nil {
			h.closeErr = fmt.Errorf("streamablehttp: requests still in the handler: %w", err)
		}
		h.closeErr = errors.Join(h.closeErr, h.closeSupervisor())
	})
	return h.closeErr
}

func (h *Handler) closeSupervisor() error {
	if !h.ownsSup {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.o.limits.GracePeriod)
	defer cancel()
	return h.sup.Close(ctx)
}

// tracker counts things in flight and lets waiters learn when none is
// left, without a lock on the request path (leave takes one only while
// someone waits).
type tracker struct {
	n       atomic.Int64
	waiting atomic.Int32
	mu      sync.Mutex
	zero    chan struct{} // closed when n reaches zero while waited on
}

func (t *tracker) enter() { t.n.Add(1) }

func (t *tracker) leave() {
	if t.n.Add(-1) == 0 && t.waiting.Load() > 0 {
		t.mu.Lock()
		if t.zero != nil {
			close(t.zero)
			t.zero = nil
		}
		t.mu.Unlock()
	}
}

// wait returns once nothing is in flight, or ctx's error.
func (t *tracker) wait(ctx context.Context) error {
	t.waiting.Add(1)
	defer t.waiting.Add(-1)
	for {
		t.mu.Lock()
		if t.zero == nil {
			t.zero = make(chan struct{})
		}
		zero := t.zero
		t.mu.Unlock()
		if t.n.Load() == 0 {
			return nil
		}
		select {
		case <-zero:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
