package actors

// A host: the tree node of a transport that serves one request per
// exchange (Streamable HTTP), its request actors and its handle.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// hostHandle is the handle of a host, implementing tree.Host: the tree
// node of a transport that serves one request per exchange, such as
// Streamable HTTP. Each exchange in flight is a request actor under the
// host, and an open subscription stream is a subscription actor under its
// request.
//
// The host owns an executor Scope: when the host stops, for whatever
// reason, every job it admitted is cancelled and delivers nothing.
type hostHandle struct {
	s      *system
	cfg    tree.HostConfig
	pid    *actor.PID
	done   <-chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	scope  *executor.Scope
	ready  chan struct{} // closed once StartHost has filled in the handle

	// served counts the exchanges begun, for the tree.
	served atomic.Int64
	// Exchanges running a job wait here for their request actor, which
	// the host spawns if they are still in flight after a moment, or when
	// the tree is inspected (spawn_later.go). Begin adds from the
	// transport's goroutines, so unlike a connection's this list is
	// guarded.
	mu    sync.Mutex
	later spawnLater[*exchange]
	fire  func()
}

// StartHost starts a host under the root supervisor.
func (s *system) StartHost(cfg tree.HostConfig) (tree.Host, error) {
	if s.exec == nil {
		return nil, errors.New("actors: a host needs the tree's executor")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "host"
	}
	if cfg.Kind == "" {
		cfg.Kind = tree.KindListener
	}
	h := &hostHandle{s: s, cfg: cfg, ready: make(chan struct{})}
	h.ctx, h.cancel = context.WithCancel(s.base)
	h.scope = s.exec.NewScope(h.ctx)
	pid, done, err := s.spawnTop(s.props(func() actor.Actor { return &hostActor{h: h} }), cfg.Prefix)
	if err != nil {
		h.cancel()
		return nil, err
	}
	h.pid, h.done = pid, done
	h.fire = func() { s.send(pid, spawnTick) }
	close(h.ready)
	return h, nil
}

// ID returns the host's path in the tree.
func (h *hostHandle) ID() string { return h.pid.Id }

// Done is closed once the host and every actor under it have stopped.
func (h *hostHandle) Done() <-chan struct{} { return h.done }

// Context ends when the host stops: its work is then cancelled.
func (h *hostHandle) Context() context.Context { return h.ctx }

// Finish asks the supervisor to stop the host (children report, parents
// stop them). Work still running is cancelled and delivers nothing; Done
// closes once the host has stopped. Finish may be called more than once.
func (h *hostHandle) Finish() { h.s.send(h.pid, &finishHost{}) }

// exchange is one exchange admitted by a host, implementing
// tree.Exchange.
type exchange struct {
	h            *hostHandle
	id           jsonrpc.ID
	method, peer string
	started      time.Time
	deadline     time.Time
	ticket       *executor.Ticket // nil for a stream: it runs no job
	stream       *hostStream      // nil for a job
	streaming    atomic.Bool
	// state is exchangePending until the host spawns the exchange's actor
	// (exchangeSpawned), exchangeEnded once End ran; the first of the host
	// and End to move it from pending decides whether an actor exists.
	state atomic.Int32
}

// States of an exchange.
const (
	exchangePending int32 = iota // no actor yet
	exchangeSpawned              // the host spawned (or, for a stream, will spawn) its actor
	exchangeEnded                // End ran
)

// hostStream is what a stream exchange holds: its spec and the key it
// reserved in the host's scope, released once.
type hostStream struct {
	spec       tree.StreamSpec
	once       sync.Once
	releaseKey func()
}

// release frees everything the stream holds, once: by End or by the
// subscription actor stopping, whichever comes first.
func (s *hostStream) release() {
	s.once.Do(func() {
		if s.spec.Close != nil {
			s.spec.Close()
		}
		if s.spec.Release != nil {
			s.spec.Release()
		}
		if s.releaseKey != nil {
			s.releaseKey()
		}
	})
}

// Begin admits spec's job to the host's scope. The exchange gets its
// request actor if it is still in flight after a moment (or when the tree
// is inspected); a fast answer gets none. It fails with ErrDuplicate,
// ErrOverloaded or ErrScopeClosed (the host has stopped) as Scope.Submit
// does, and then starts nothing.
func (h *hostHandle) Begin(spec tree.RequestSpec) (tree.Exchange, error) {
	r := &exchange{h: h, id: spec.ID, method: spec.Method, peer: spec.Peer, started: time.Now()}
	timeout := spec.Timeout
	if timeout == 0 {
		timeout = h.s.exec.Config().Timeout
	}
	if timeout > 0 {
		r.deadline = r.started.Add(timeout)
	}
	t, err := h.scope.Submit(spec.Key, executor.Job{Timeout: spec.Timeout, Received: r.started, Task: spec.Task, Run: spec.Run, Done: spec.Done})
	if err != nil {
		return nil, err
	}
	r.ticket = t
	h.served.Add(1)
	h.mu.Lock()
	h.later.add(r, h.s.spawnDelay(), h.fire)
	h.mu.Unlock()
	return r, nil
}

// BeginStream admits a stream exchange to the host and starts its request
// and subscription actors. It fails with ErrDuplicate or ErrScopeClosed
// (the host has stopped), and then starts nothing and releases nothing:
// the caller still owns the stream.
func (h *hostHandle) BeginStream(spec tree.StreamSpec) (tree.Exchange, error) {
	rel, err := h.scope.Reserve(spec.Key)
	if err != nil {
		return nil, err
	}
	r := &exchange{h: h, id: spec.ID, method: spec.Method, peer: spec.Peer, started: time.Now(),
		stream: &hostStream{spec: spec, releaseKey: rel}}
	r.streaming.Store(true)
	r.state.Store(exchangeSpawned)
	h.served.Add(1)
	h.s.send(h.pid, &startHostRequest{r: r})
	return r, nil
}

// Cancel stops the job without delivery (see Ticket.Cancel) and reports
// whether it prevented one. A stream has no job: Cancel does nothing.
func (r *exchange) Cancel() bool {
	if r.ticket == nil {
		return false
	}
	return r.ticket.Cancel()
}

// SetStreaming marks the exchange as answering with a stream, for the
// tree.
func (r *exchange) SetStreaming() { r.streaming.Store(true) }

// End reports the exchange over: its request actor (and subscription
// actor) stop, and a job still running is cancelled. Only the first call
// counts.
func (r *exchange) End() {
	old := r.state.Swap(exchangeEnded)
	if old == exchangeEnded {
		return
	}
	if r.stream != nil {
		r.stream.release() // also released by the subscription actor; once
	}
	if old == exchangePending { // mutation: host-end-cancels-request-without-actor
		// No actor, and the host will spawn none: End cancels the job
		// itself, as the actor's stop would.
		r.Cancel()
		return
	}
	r.h.s.send(r.h.pid, &endHostRequest{r: r})
}

// Messages of the host actor. All come from goroutines outside the tree
// and may arrive after it stopped.
type (
	startHostRequest struct{ r *exchange }
	endHostRequest   struct{ r *exchange }
	finishHost       struct{}
)

func (*startHostRequest) IgnoreDeadLetterLogging() {}
func (*endHostRequest) IgnoreDeadLetterLogging()   {}
func (*finishHost) IgnoreDeadLetterLogging()       {}

// hostActor is a Host's node. It spawns and stops request actors; the
// exchanges themselves run on the transport's goroutines and the
// executor's workers, so the host is never on a request's critical path:
// a job's exchange gets its actor only if it is still in flight after a
// moment.
type hostActor struct {
	h        *hostHandle
	requests map[*exchange]*actor.PID
	spawner  requestSpawner
	finished bool        // no more requests: finishing or stopping
	reported bool        // childFinished sent
	stopping bool        // the runtime is stopping our children: never stop one twice
	due      []*exchange // exchanges whose actor is due, taken from the handle's list
}

func (a *hostActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{
		"requests": itoa(len(a.requests)),
		"served":   itoa(int(a.h.served.Load())),
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
		a.requests = map[*exchange]*actor.PID{}
		if run := a.h.cfg.Run; run != nil {
			go func() {
				<-a.h.ready // Run may use the handle, pid included
				run()
			}()
		}
	case *startHostRequest:
		// A stream that already ended gets no actor: End may run on
		// another goroutine than BeginStream, so its message can overtake
		// this one. A stopping host starts none either.
		if a.finished || m.r.state.Load() == exchangeEnded {
			m.r.Cancel()
			return
		}
		a.requests[m.r] = a.spawner.spawn(a.h.s, ac, &hostRequestActor{r: m.r})
	case *spawnDue:
		if a.finished {
			return
		}
		h := a.h
		h.mu.Lock()
		h.later.tick(h.s.spawnDelay(), h.fire, func(r *exchange) { a.due = append(a.due, r) })
		h.mu.Unlock()
		a.spawnDue(ac)
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
			a.stopLater()
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
		a.stopLater()
		a.h.cancel() // the scope closes: every job is cancelled
		if halt := a.h.cfg.Halt; halt != nil {
			halt()
		}
	}
}

// spawnDue spawns the actor of every exchange in a.due still pending, and
// empties it.
func (a *hostActor) spawnDue(ac actor.Context) {
	for i, r := range a.due {
		a.due[i] = nil
		if r.state.CompareAndSwap(exchangePending, exchangeSpawned) {
			a.requests[r] = a.spawner.spawn(a.h.s, ac, &hostRequestActor{r: r})
		}
	}
	a.due = a.due[:0]
}

// materialize spawns the actor of every exchange still pending, so an
// inspection of the tree shows them all.
func (a *hostActor) materialize(ac actor.Context) {
	if a.finished {
		return
	}
	h := a.h
	h.mu.Lock()
	a.due = append(append(a.due, h.later.aging...), h.later.young...)
	h.mu.Unlock()
	a.spawnDue(ac)
}

// stopLater forgets the exchanges still pending: the host is ending, and
// its scope's end cancels their jobs.
func (a *hostActor) stopLater() {
	a.h.mu.Lock()
	a.h.later.stop()
	a.h.mu.Unlock()
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
	r *exchange
}

func (a *hostRequestActor) describe() (tree.Kind, map[string]string) {
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
	return tree.KindRequest, attrs
}

func (a *hostRequestActor) Receive(ac actor.Context) {
	s := a.r.h.s
	defer s.logPanic(ac)
	if s.leafReceive(ac, a) {
		return
	}
	switch ac.Message().(type) {
	case *actor.Started:
		if st := a.r.stream; st != nil {
			ac.SpawnPrefix(a.r.h.s.props(func() actor.Actor { return &hostSubscriptionActor{stream: st, started: time.Now()} }), "sub")
		}
	case *actor.Stopping:
		a.r.Cancel()
	}
}
