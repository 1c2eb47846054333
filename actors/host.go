package actors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Host is the tree node of a transport that serves one request per
// exchange, such as Streamable HTTP: the native listener (kind listener)
// or an http.Handler mounted in an application's server (kind handler).
// Each exchange in flight is a request actor under the host, and an open
// subscription stream is a subscription actor under its request.
//
// The host owns an executor Scope: when the host stops, for whatever
// reason, every job it admitted is cancelled and delivers nothing.
type Host struct {
	s      *System
	cfg    HostConfig
	pid    *actor.PID
	done   <-chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	scope  *executor.Scope
	ready  chan struct{} // closed once StartHost has filled in the handle
}

// HostConfig describes a Host.
type HostConfig struct {
	// Prefix names the host in the tree ("http" → snodo/http$1).
	Prefix string
	// Kind is the host's node kind: KindListener or KindHandler.
	Kind Kind
	// Executor runs the host's jobs.
	Executor *executor.Executor
	// Attrs, when set, adds attributes to the host's node. It runs on the
	// host actor's goroutine and must only read goroutine-safe state.
	Attrs func(map[string]string)
	// Run, when set, runs on a goroutine the host starts once it has
	// started: a listener's accept loop. The host does not stop when it
	// returns; the transport decides.
	Run func()
	// Halt, when set, is called when the host stops for any reason. It
	// must make Run return and must not block.
	Halt func()
}

// StartHost starts a host under the root supervisor.
func (s *System) StartHost(cfg HostConfig) (*Host, error) {
	if cfg.Executor == nil {
		return nil, errors.New("actors: HostConfig needs an Executor")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "host"
	}
	if cfg.Kind == "" {
		cfg.Kind = KindListener
	}
	h := &Host{s: s, cfg: cfg, ready: make(chan struct{})}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.scope = cfg.Executor.NewScope(h.ctx)
	pid, done, err := s.spawnTop(s.props(func() actor.Actor { return &hostActor{h: h} }), cfg.Prefix)
	if err != nil {
		h.cancel()
		return nil, err
	}
	h.pid, h.done = pid, done
	close(h.ready)
	return h, nil
}

// ID returns the host's path in the tree.
func (h *Host) ID() string { return h.pid.Id }

// Done is closed once the host and every actor under it have stopped.
func (h *Host) Done() <-chan struct{} { return h.done }

// Context ends when the host stops: its work is then cancelled.
func (h *Host) Context() context.Context { return h.ctx }

// Finish asks the supervisor to stop the host (children report, parents
// stop them). Work still running is cancelled and delivers nothing; Done
// closes once the host has stopped. Finish may be called more than once.
func (h *Host) Finish() { h.s.send(h.pid, &finishHost{}) }

// RequestSpec describes one exchange to run under a host.
type RequestSpec struct {
	// Key rejects a second job with the same key while the first is in
	// flight (ErrDuplicate); nil for no check.
	Key any
	// ID and Method describe the request in the tree.
	ID     jsonrpc.ID
	Method string
	// Peer is the client's address, for the tree.
	Peer string
	// Timeout overrides the executor's default deadline (zero: default).
	Timeout time.Duration
	// Run and Done are the job, as in Job.
	Run  func(ctx context.Context) any
	Done func(executor.Result)
}

// HostRequest is one exchange admitted by a Host. The goroutine that
// serves the exchange calls End exactly when it is over, however it ended.
type HostRequest struct {
	h            *Host
	id           jsonrpc.ID
	method, peer string
	started      time.Time
	deadline     time.Time
	ticket       *executor.Ticket // nil for a stream: it runs no job
	stream       *StreamSpec      // nil for a job
	streaming    atomic.Bool
	ended        atomic.Bool
}

// Begin admits spec's job to the host's scope and starts a request actor
// for it. It fails with ErrDuplicate, ErrOverloaded or ErrScopeClosed (the
// host has stopped) as Scope.Submit does, and then starts nothing.
func (h *Host) Begin(spec RequestSpec) (*HostRequest, error) {
	r := &HostRequest{h: h, id: spec.ID, method: spec.Method, peer: spec.Peer, started: time.Now()}
	timeout := spec.Timeout
	if timeout == 0 {
		timeout = h.cfg.Executor.Config().Timeout
	}
	if timeout > 0 {
		r.deadline = r.started.Add(timeout)
	}
	t, err := h.scope.Submit(spec.Key, executor.Job{Timeout: spec.Timeout, Run: spec.Run, Done: spec.Done})
	if err != nil {
		return nil, err
	}
	r.ticket = t
	h.s.send(h.pid, &startHostRequest{r: r})
	return r, nil
}

// StreamSpec describes an exchange that answers with a subscription
// stream. It runs no job and takes no execution slot: the transport's
// goroutine for the exchange drives the stream. The request actor gets a
// subscription actor child, which releases the stream when it stops.
type StreamSpec struct {
	// Key rejects the stream while a job or stream with the same key is
	// in flight in the host (ErrDuplicate); nil for no check.
	Key any
	// ID and Method describe the request in the tree.
	ID     jsonrpc.ID
	Method string
	// Peer is the client's address, for the tree.
	Peer string
	// Describe, when set, returns the subscription actor's attributes
	// (its filter). It runs on the actor's goroutine.
	Describe func() map[string]string
	// Release returns the stream's subscription slot and Close closes its
	// source. Each is called when the subscription actor stops, whatever
	// the reason, and by End (the actor may never start); both must be
	// idempotent.
	Release, Close func()

	once       sync.Once
	releaseKey func()
}

// release frees everything the stream holds, once.
func (s *StreamSpec) release() {
	s.once.Do(func() {
		if s.Close != nil {
			s.Close()
		}
		if s.Release != nil {
			s.Release()
		}
		if s.releaseKey != nil {
			s.releaseKey()
		}
	})
}

// BeginStream admits a stream exchange to the host and starts its request
// and subscription actors. It fails with ErrDuplicate or ErrScopeClosed
// (the host has stopped), and then starts nothing and releases nothing:
// the caller still owns the stream.
func (h *Host) BeginStream(spec *StreamSpec) (*HostRequest, error) {
	rel, err := h.scope.Reserve(spec.Key)
	if err != nil {
		return nil, err
	}
	spec.releaseKey = rel
	r := &HostRequest{h: h, id: spec.ID, method: spec.Method, peer: spec.Peer, started: time.Now(), stream: spec}
	r.streaming.Store(true)
	h.s.send(h.pid, &startHostRequest{r: r})
	return r, nil
}

// Cancel stops the job without delivery (see Ticket.Cancel) and reports
// whether it prevented one. A stream has no job: Cancel does nothing.
func (r *HostRequest) Cancel() bool {
	if r.ticket == nil {
		return false
	}
	return r.ticket.Cancel()
}

// SetStreaming marks the exchange as answering with a stream, for the
// tree.
func (r *HostRequest) SetStreaming() { r.streaming.Store(true) }

// End reports the exchange over: its request actor (and subscription
// actor) stop, and a job still running is cancelled. Only the first call
// counts.
func (r *HostRequest) End() {
	if r.ended.Swap(true) {
		return
	}
	if r.stream != nil {
		r.stream.release() // also released by the subscription actor; once
	}
	r.h.s.send(r.h.pid, &endHostRequest{r: r})
}

// Messages of the host actor. All come from goroutines outside the tree
// and may arrive after it stopped.
type (
	startHostRequest struct{ r *HostRequest }
	endHostRequest   struct{ r *HostRequest }
	finishHost       struct{}
)

func (*startHostRequest) IgnoreDeadLetterLogging() {}
func (*endHostRequest) IgnoreDeadLetterLogging()   {}
func (*finishHost) IgnoreDeadLetterLogging()       {}

// hostActor is a Host's node. It spawns and stops request actors; the
// exchanges themselves run on the transport's goroutines and the
// executor's workers, so the host is never on a request's critical path
// except for one spawn.
type hostActor struct {
	h        *Host
	requests map[*HostRequest]*actor.PID
	spawner  requestSpawner
	finished bool // no more requests: finishing or stopping
	reported bool // childFinished sent
	stopping bool // the runtime is stopping our children: never stop one twice
	served   int64
}

func (a *hostActor) describe() (Kind, map[string]string) {
	attrs := map[string]string{
		"requests": itoa(len(a.requests)),
		"served":   itoa(int(a.served)),
	}
	if a.finished {
		attrs["state"] = "stopping"
	}
	if a.h.cfg.Attrs != nil {
		a.h.cfg.Attrs(attrs)
	}
	return a.h.cfg.Kind, attrs
}

func (a *hostActor) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case *actor.Started:
		a.requests = map[*HostRequest]*actor.PID{}
		if run := a.h.cfg.Run; run != nil {
			go func() {
				<-a.h.ready // Run may use the handle, pid included
				run()
			}()
		}
	case *startHostRequest:
		a.served++
		// An exchange that already ended gets no actor: a fast answer
		// often ends before this message is read, and its actor would
		// have nothing left to own (End may also run on another
		// goroutine than Begin, so its message can overtake this one).
		// A stopping host starts none either.
		if a.finished || m.r.ended.Load() {
			m.r.Cancel()
			return
		}
		a.requests[m.r] = a.spawner.spawn(a.h.s, ac, &hostRequestActor{r: m.r})
	case *endHostRequest:
		if pid, ok := a.requests[m.r]; ok {
			delete(a.requests, m.r)
			if !a.stopping {
				ac.Stop(pid)
			}
		}
	case *finishHost:
		if !a.finished {
			// Stop the requests first, and report only once they are all
			// gone: when the supervisor then stops the host, no child is
			// left for the runtime to stop a second time.
			a.finished = true
			a.h.cancel()
			for r, pid := range a.requests {
				delete(a.requests, r)
				ac.Stop(pid)
			}
			a.reportWhenEmpty(ac)
		}
	case *actor.Terminated:
		a.reportWhenEmpty(ac)
	case *actor.Stopping:
		a.finished, a.stopping = true, true
		a.h.cancel() // the scope closes: every job is cancelled
		if halt := a.h.cfg.Halt; halt != nil {
			halt()
		}
	}
}

func (a *hostActor) reportWhenEmpty(ac actor.Context) {
	if a.finished && !a.reported && !a.stopping && len(ac.Children()) == 0 {
		a.reported = true
		ac.Send(ac.Parent(), &childFinished{pid: ac.Self()})
	}
}

// hostRequestActor stands for one exchange. Stopping it, for whatever
// reason (the exchange ended, the client went away, the host stopped),
// cancels the work; the executor then delivers nothing.
type hostRequestActor struct {
	r *HostRequest
}

func (a *hostRequestActor) describe() (Kind, map[string]string) {
	r := a.r
	attrs := map[string]string{
		"id":     r.id.String(),
		"method": r.method,
		"age":    time.Since(r.started).Round(time.Millisecond).String(),
	}
	if r.peer != "" {
		attrs["peer"] = r.peer
	}
	if !r.deadline.IsZero() {
		attrs["deadline"] = r.deadline.UTC().Format(time.RFC3339Nano)
	}
	if r.streaming.Load() {
		attrs["response"] = "text/event-stream"
	}
	if r.ticket != nil { // a stream runs no job
		attrs["state"] = r.ticket.State()
	}
	return KindRequest, attrs
}

func (a *hostRequestActor) Receive(ac actor.Context) {
	s := a.r.h.s
	defer s.logPanic(ac)
	if s.leafReceive(ac, a) {
		return
	}
	switch ac.Message().(type) {
	case *actor.Started:
		if spec := a.r.stream; spec != nil {
			ac.SpawnPrefix(a.r.h.s.props(func() actor.Actor { return &hostSubscriptionActor{spec: spec, started: time.Now()} }), "sub")
		}
	case *actor.Stopping:
		a.r.Cancel()
	}
}
