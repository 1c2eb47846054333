// Package executor bounds application work: at most MaxConcurrency jobs
// run at once and MaxQueue wait in FIFO order, each job has a deadline
// counted from submission and a cancellation signal (its context), and a
// submitter's Scope, when it ends, drops its queued jobs and cancels its
// running ones without delivering anything for them. Every job ends in
// exactly one of: delivered Completed, TimedOut or Failed, or silently
// cancelled; the first transition wins. The executor also counts
// subscription slots, shared by every transport that uses it.
//
// It is plain Go, independent of the actor runtime and of any transport:
// package supervisor creates one per tree and the actors and transports
// submit to it.
package executor

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/guard"
)

// Defaults of the zero Config fields. supervisor.Limits documents them
// to users.
const (
	DefaultMaxConcurrency   = 32
	DefaultMaxQueue         = 256
	DefaultRequestTimeout   = 30 * time.Second
	DefaultMaxSubscriptions = 256
)

// Errors returned by Scope.Submit.
var (
	// ErrDuplicate: the scope already has work in flight under that key.
	ErrDuplicate = errors.New("executor: duplicate in-flight key")
	// ErrOverloaded: every slot is busy and the queue is full.
	ErrOverloaded = errors.New("executor: execution capacity exhausted")
	// ErrScopeClosed: the submitter's scope has ended.
	ErrScopeClosed = errors.New("executor: scope closed")
)

// Config bounds an Executor. A zero field takes its default.
type Config struct {
	// MaxConcurrency is the number of jobs running at once. Default 32.
	MaxConcurrency int
	// MaxQueue is the number of jobs waiting for a slot, FIFO. Default 256.
	MaxQueue int
	// Timeout is the default deadline of a job, counted from submission
	// (queue wait plus execution). Default 30 s.
	Timeout time.Duration
	// MaxSubscriptions bounds the open subscription streams counted in
	// this executor, shared by every transport using it. Default 256.
	MaxSubscriptions int
	// Logger receives worker panics. Default slog.Default().
	Logger *slog.Logger
	// Sink, when set, hears about admissions, rejections, starts and
	// ends of jobs, and subscription slots (see executor_events.go).
	// Nil builds no events.
	Sink instrumentation.Sink
}

// Executor runs jobs with bounded admission (MaxConcurrency running,
// MaxQueue waiting), a deadline and a cancellation signal per job, and
// cleanup when a submitter's Scope ends: its queued jobs are dropped and its
// running jobs cancelled, and nothing is delivered for them. It is
// independent of any transport and may be shared by several.
//
// Admission takes a mutex on the submitter's goroutine, not a message hop:
// the executor is the only shared structure on the request path, and a
// protoactor round trip there would cost several microseconds per request.
// A slot frees only when the job's goroutine has really returned.
type Executor struct {
	cfg    Config
	logger *slog.Logger
	sink   instrumentation.Sink // nil: no events

	mu      sync.Mutex
	running int
	queue   list.List // of *job, FIFO
	subs    int
	closed  bool
	// suspended counts running jobs that gave their slot back while they
	// wait (slot.Slot's Release); resumers holds those asking for one
	// again, FIFO, served before the queue.
	suspended int
	resumers  list.List // of *resumer

	// busy counts jobs whose Run has not returned: those holding a slot
	// (running) and those suspended. Close waits on it.
	busy sync.WaitGroup
	// Worker goroutines outlive their jobs and park between them, so a job
	// runs on a goroutine whose stack has already grown: starting one per
	// job cost a fifth of the CPU of a small tool call. A free slot's job
	// is handed to a parked worker when there is one; a worker parked for
	// workerIdle (to twice that), or told to quit by Close, exits.
	handoff    chan *job
	idleFor    time.Duration // workerIdle; tests shorten it
	quit       chan struct{}
	quitOnce   sync.Once
	goroutines sync.WaitGroup
	// workerExited, when set (by tests), runs as each worker goroutine
	// returns.
	workerExited func()

	submitted, rejected, timedOut, cancelled, failed atomic.Int64

	// deadlines are the deadline queues by timeout (deadlines.go);
	// guarded by mu.
	deadlines map[time.Duration]*deadlineQueue
}

// New returns an Executor with cfg's bounds.
func New(cfg Config) *Executor {
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	if cfg.MaxQueue < 0 {
		cfg.MaxQueue = 0
	} else if cfg.MaxQueue == 0 {
		cfg.MaxQueue = DefaultMaxQueue
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRequestTimeout
	}
	if cfg.MaxSubscriptions <= 0 {
		cfg.MaxSubscriptions = DefaultMaxSubscriptions
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Sink = guard.Sink(cfg.Sink, cfg.Logger)
	return &Executor{cfg: cfg, logger: cfg.Logger, sink: cfg.Sink, handoff: make(chan *job), idleFor: workerIdle, quit: make(chan struct{})}
}

// workerIdle is how long a worker parks without work before it exits, at
// least (at most twice that: see park).
const workerIdle = 10 * time.Second

// Config returns the executor's bounds, defaults applied.
func (e *Executor) Config() Config { return e.cfg }

// Stats is a point-in-time view of an Executor.
type Stats struct {
	// Waiting counts jobs that gave their slot back while they wait for
	// something else (a component's concurrency limit); they are not in
	// Running.
	Running, Queued, Subscriptions, Waiting          int
	Submitted, Rejected, TimedOut, Cancelled, Failed int64
}

// Stats returns the executor's current counts.
func (e *Executor) Stats() Stats {
	e.mu.Lock()
	s := Stats{Running: e.running, Queued: e.queue.Len(), Subscriptions: e.subs, Waiting: e.suspended}
	e.mu.Unlock()
	s.Submitted, s.Rejected = e.submitted.Load(), e.rejected.Load()
	s.TimedOut, s.Cancelled, s.Failed = e.timedOut.Load(), e.cancelled.Load(), e.failed.Load()
	return s
}

// Status is how a delivered job ended.
type Status uint8

const (
	// Completed: Run returned Value.
	Completed Status = iota + 1
	// TimedOut: the deadline passed first. The job's context is cancelled;
	// its slot frees when Run returns.
	TimedOut
	// Failed: Run panicked (Panic holds the value).
	Failed
)

// Result is what an Executor delivers for a job.
type Result struct {
	Status Status
	Value  any
	Panic  any
}

// Task is a unit of work as one value: Run does the work, Done receives
// its Result, with the meanings of Job's fields of the same names. A
// submitter that already has a value per job (a request's record) makes
// it a Task rather than allocating two closures.
type Task interface {
	Run(ctx context.Context) any
	Done(Result)
}

// Job is one unit of work: Task, or Run and Done.
type Job struct {
	// Task, when set, is the work and its delivery; Run and Done are
	// then ignored.
	Task Task
	// Timeout overrides the executor's default deadline; negative means
	// none.
	Timeout time.Duration
	// Received, when set, is when the submitter took the work in, a
	// moment before Submit: the deadline counts from it, and Submit does
	// not read the clock again. Zero means the time of Submit.
	Received time.Time
	// Run does the work. Its context is cancelled on Cancel, on the
	// deadline, and when the scope ends.
	Run func(ctx context.Context) any
	// Done receives the job's one Result, unless the job was cancelled or
	// its scope ended first, in which case it is never called. It runs on
	// the worker or timer goroutine and must not block.
	Done func(Result)
}

// job states: the first terminal transition wins.
const (
	stateQueued int32 = iota
	stateRunning
	stateCompleted
	stateTimedOut
	stateFailed
	stateCancelled
)

type job struct {
	// ticket is the job's Ticket, returned by Submit: part of the job, so
	// it costs no allocation of its own.
	ticket Ticket
	e      *Executor
	scope  *Scope
	key    any
	// task, or runFn and doneFn, are the work and its delivery (the
	// Job's); only they are kept of the Job, so the record stays in its
	// size class.
	task   Task
	runFn  func(ctx context.Context) any
	doneFn func(Result)
	state  atomic.Int32
	ctx    context.Context
	cancel context.CancelCauseFunc
	// vctx is ctx as Run sees it: it answers slot.Key with the job, so
	// code inside the job can give its slot back while it waits. It lives
	// in the job, costing no allocation.
	vctx jobContext
	// holds is set while the job holds an execution slot; guarded by e.mu.
	holds bool
	// waiting is set while the job has given its slot back.
	waiting atomic.Bool
	timer   *time.Timer
	// dq is the deadline queue holding the job, with its links and
	// deadline, when it has no timer of its own; guarded by e.mu.
	dq           *deadlineQueue
	dprev, dnext *job
	deadline     time.Time
	elem         *list.Element // in the queue while queued
	// sprev and snext link the job among its scope's jobs in flight;
	// guarded by e.mu. inScope is set while it is linked.
	sprev, snext *job
	inScope      bool
	// admitted is the submission time, recorded only for instrumentation.
	admitted time.Time
}

// Scope is one submitter's share of an Executor. Keys are unique per scope
// among jobs in flight. When the scope's context ends (or Close is called)
// its work is dropped without delivery.
type Scope struct {
	e   *Executor
	ctx context.Context
	// parent is what job contexts derive from: ctx without its
	// cancellation when ctx has no deadline. A job context linked to a
	// cancellable parent costs a lock on the parent and an entry in its
	// children map on every Submit and again on every finish; Close, which
	// runs when ctx ends, cancels every job in flight instead.
	parent context.Context
	keys   map[any]*job // in-flight keyed jobs; guarded by e.mu
	jobs   *job         // every in-flight job, linked through sprev and snext; guarded by e.mu
	closed bool         // guarded by e.mu
	stop   func() bool
}

// NewScope returns a scope whose lifetime is ctx: when ctx is done the
// scope closes.
func (e *Executor) NewScope(ctx context.Context) *Scope {
	s := &Scope{e: e, ctx: ctx, parent: ctx, keys: map[any]*job{}}
	if _, ok := ctx.Deadline(); !ok {
		s.parent = context.WithoutCancel(ctx)
	}
	s.stop = context.AfterFunc(ctx, s.Close)
	return s
}

// Ticket identifies a submitted job.
type Ticket struct{ j *job }

// Submit admits a job under key (nil for no duplicate check). It starts the
// job at once when a slot is free, queues it otherwise, and fails with
// ErrOverloaded when the queue is full, ErrDuplicate when key is in flight
// in this scope, or ErrScopeClosed.
func (s *Scope) Submit(key any, spec Job) (*Ticket, error) {
	e := s.e
	timeout := spec.Timeout
	if timeout == 0 {
		timeout = e.cfg.Timeout
	}
	received := spec.Received
	if received.IsZero() && timeout > 0 {
		received = time.Now()
	}
	e.mu.Lock()
	switch {
	case s.closed || e.closed || s.ctx.Err() != nil: // mutation: executor-refuses-closed-scope
		e.mu.Unlock()
		return nil, ErrScopeClosed
	case key != nil && s.keys[key] != nil: // mutation: executor-refuses-duplicate-key
		running, queued := e.running, e.queue.Len()
		e.mu.Unlock()
		e.rejected.Add(1)
		if e.sink != nil {
			e.emitRejected("duplicate", running, queued)
		}
		return nil, ErrDuplicate
	case e.running >= e.cfg.MaxConcurrency && e.queue.Len() >= e.cfg.MaxQueue: // mutation: executor-refuses-when-full
		running, queued := e.running, e.queue.Len()
		e.mu.Unlock()
		e.rejected.Add(1)
		if e.sink != nil {
			e.emitRejected("overloaded", running, queued)
		}
		return nil, ErrOverloaded
	}
	j := &job{e: e, scope: s, key: key, task: spec.Task, runFn: spec.Run, doneFn: spec.Done}
	j.ticket.j = j
	cctx, cancel := context.WithCancelCause(s.parent)
	j.vctx = jobContext{Context: cctx, j: j}
	j.ctx, j.cancel = &j.vctx, cancel
	if key != nil {
		s.keys[key] = j
	}
	s.linkLocked(j)
	start := e.running < e.cfg.MaxConcurrency
	if start {
		e.running++
		e.busy.Add(1)
		j.holds = true
		j.state.Store(stateRunning)
	} else {
		j.elem = e.queue.PushBack(j)
	}
	if timeout > 0 { // mutation: executor-arms-deadline
		if q := e.deadlineQueueLocked(timeout); q != nil {
			q.pushLocked(j, received, timeout)
		} else {
			j.timer = time.AfterFunc(time.Until(received.Add(timeout)), j.expire)
		}
	}
	var running, queued int
	if e.sink != nil {
		j.admitted = time.Now()
		running, queued = e.running, e.queue.Len()
	}
	e.mu.Unlock()
	e.submitted.Add(1)
	if e.sink != nil {
		e.emitAdmitted(!start, running, queued)
	}
	if start {
		e.dispatch(j)
	}
	return &j.ticket, nil
}

// linkLocked adds j to the scope's jobs in flight (a list rather than a
// map: no hashing and no map growth per job).
func (s *Scope) linkLocked(j *job) {
	j.sprev, j.snext, j.inScope = nil, s.jobs, true
	if s.jobs != nil {
		s.jobs.sprev = j
	}
	s.jobs = j
}

// unlinkLocked removes j from the scope's jobs in flight, if it is there.
func (s *Scope) unlinkLocked(j *job) {
	if !j.inScope {
		return
	}
	if j.sprev != nil {
		j.sprev.snext = j.snext
	} else {
		s.jobs = j.snext
	}
	if j.snext != nil {
		j.snext.sprev = j.sprev
	}
	j.sprev, j.snext, j.inScope = nil, nil, false
}

// Reserve claims key in the scope for work that runs outside the
// executor, such as a subscription stream: while the key is held, Submit
// or Reserve under it fails with ErrDuplicate. It takes no execution
// slot. It fails with ErrDuplicate, or ErrScopeClosed once the scope has
// ended. The returned release frees the key; it is idempotent. A nil key
// reserves nothing.
func (s *Scope) Reserve(key any) (release func(), err error) {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case s.closed || e.closed || s.ctx.Err() != nil:
		return nil, ErrScopeClosed
	case key == nil:
		return func() {}, nil
	case s.keys[key] != nil:
		e.rejected.Add(1)
		return nil, ErrDuplicate
	}
	holder := &job{e: e, scope: s, key: key}
	s.keys[key] = holder
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			if s.keys[key] == holder {
				delete(s.keys, key)
			}
			e.mu.Unlock()
		})
	}, nil
}

// Close ends the scope: queued jobs are dropped, running jobs cancelled,
// nothing is delivered for any of them, and later Submits fail.
func (s *Scope) Close() {
	e := s.e
	e.mu.Lock()
	if s.closed {
		e.mu.Unlock()
		return
	}
	s.closed = true
	var jobs []*job
	for j := s.jobs; j != nil; j = j.snext { // mutation: scope-close-cancels-running-jobs
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	s.stop()
	for _, j := range jobs {
		j.abort()
	}
}

// Cancel stops the job without delivery: a queued job is dropped, a running
// one has its context cancelled (its slot frees when Run returns). It
// reports whether the cancel prevented a delivery.
func (t *Ticket) Cancel() bool { return t.j.abort() }

// Context returns the job's context.
func (t *Ticket) Context() context.Context { return t.j.ctx }

// State describes where the job is, for the supervision tree: "queued",
// "running", or how it ended ("completed", "timed_out", "failed",
// "cancelled").
func (t *Ticket) State() string {
	switch t.j.state.Load() {
	case stateQueued:
		return "queued"
	case stateRunning:
		if t.j.waiting.Load() {
			return "waiting"
		}
		return "running"
	case stateCompleted:
		return "completed"
	case stateTimedOut:
		return "timed_out"
	case stateFailed:
		return "failed"
	}
	return "cancelled"
}

func (j *job) abort() bool {
	for {
		st := j.state.Load()
		if st != stateQueued && st != stateRunning {
			return false
		}
		if j.state.CompareAndSwap(st, stateCancelled) {
			j.e.cancelled.Add(1)
			j.finishTerminal(st == stateQueued)
			return true
		}
	}
}

// expire is the deadline timer.
func (j *job) expire() {
	for {
		st := j.state.Load()
		if st != stateQueued && st != stateRunning {
			return
		}
		if j.scope.ctx.Err() != nil { // mutation: deadline-delivers-nothing-to-dead-owner
			j.abort()
			return
		}
		if j.state.CompareAndSwap(st, stateTimedOut) {
			j.e.timedOut.Add(1)
			j.finishTerminal(st == stateQueued)
			j.deliver(Result{Status: TimedOut})
			return
		}
	}
}

// finishTerminal runs once, after the winning terminal transition: it
// releases the key, removes a queued job, and cancels the context.
func (j *job) finishTerminal(wasQueued bool) {
	e := j.e
	e.mu.Lock()
	if j.key != nil && j.scope.keys[j.key] == j {
		delete(j.scope.keys, j.key)
	}
	j.scope.unlinkLocked(j)
	if wasQueued && j.elem != nil { // mutation: executor-unqueues-cancelled-job
		e.queue.Remove(j.elem)
		j.elem = nil
	}
	if j.dq != nil {
		j.dq.removeLocked(j)
	}
	running, queued := e.running, e.queue.Len()
	e.mu.Unlock()
	if e.sink != nil {
		e.emitFinished(j, running, queued)
	}
	if j.timer != nil {
		j.timer.Stop()
	}
	// A job that timed out has context.DeadlineExceeded as its context's
	// cause (context.Cause), so code it cancels can tell why.
	if j.state.Load() == stateTimedOut {
		j.cancel(context.DeadlineExceeded)
	} else {
		j.cancel(context.Canceled)
	}
}

func (j *job) deliver(r Result) {
	if j.task != nil {
		j.task.Done(r)
		return
	}
	if j.doneFn != nil {
		j.doneFn(r)
	}
}

// dispatch runs a job that holds a slot: on a parked worker if one is
// waiting, else on a new one.
func (e *Executor) dispatch(j *job) {
	select {
	case e.handoff <- j:
	default:
		e.goroutines.Add(1)
		go e.worker(j)
	}
}

// worker runs jobs: the one it was started with, then queued ones while
// there are any, then whatever is handed to it while it parks.
func (e *Executor) worker(j *job) {
	defer e.goroutines.Done()
	if e.workerExited != nil {
		defer e.workerExited()
	}
	// The idle timer is made at the first park (a worker that never parks,
	// such as one running a long call, holds none) and then left running
	// across jobs: re-arming and stopping it around every park cost more
	// than the park itself, and so would reading the clock at each park.
	var idle *time.Timer
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		for j != nil {
			j.run()
			j = e.release(j)
		}
		if idle == nil {
			idle = time.NewTimer(e.idleFor)
		}
		var ok bool
		if j, ok = e.park(idle); !ok {
			return
		}
	}
}

// park waits for a job handed to the worker. It reports false when the
// worker should exit: told to by Close, or when the idle timer fires and
// finds it has had no job since the timer last fired (or was armed). The
// timer, if it fired while the worker ran jobs, is then re-armed for a
// whole idleFor: a worker exits between idleFor and twice that after its
// last job ended.
func (e *Executor) park(idle *time.Timer) (*job, bool) {
	fired := false
	for {
		select {
		case j := <-e.handoff:
			return j, true
		case <-idle.C:
			if fired { // mutation: worker-exits-only-when-idle
				return nil, false
			}
			// The first fire may be one from while the worker ran jobs,
			// or from an arming long before this park: a whole idleFor
			// more.
			fired = true
			idle.Reset(e.idleFor)
		case <-e.quit:
			return nil, false
		}
	}
}

// run executes one job and delivers its result if it is still wanted.
func (j *job) run() {
	if j.scope.ctx.Err() != nil { // mutation: executor-runs-nothing-for-dead-owner
		j.abort() // the owner died while the job waited
		return
	}
	if j.e.sink != nil {
		j.e.emitStarted(j)
	}
	var (
		value    any
		panicked any
		didPanic bool
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				didPanic, panicked = true, r
				j.e.logger.Error("snodo: executor job panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		if j.task != nil {
			value = j.task.Run(j.ctx)
		} else {
			value = j.runFn(j.ctx)
		}
	}()
	if j.scope.ctx.Err() != nil { // mutation: executor-delivers-nothing-to-dead-owner
		// The owner died while the job ran; its scope's Close may not
		// have run yet, but the owner must get nothing.
		j.abort()
		return
	}
	next, res := stateCompleted, Result{Status: Completed, Value: value}
	if didPanic {
		next, res = stateFailed, Result{Status: Failed, Panic: panicked}
	}
	if j.state.CompareAndSwap(stateRunning, next) {
		if didPanic {
			j.e.failed.Add(1)
		}
		j.finishTerminal(false)
		j.deliver(res)
	}
}

// release frees the finished job's slot (if it still held one) and
// returns the next queued job to run on the same goroutine, if any.
func (e *Executor) release(done *job) *job {
	e.mu.Lock()
	if !done.holds {
		// It ended while suspended: no slot to pass on.
		e.suspended--
		e.mu.Unlock()
		e.busy.Done()
		return nil
	}
	done.holds = false
	next := e.passSlotLocked()
	e.mu.Unlock()
	if next == nil {
		e.busy.Done()
	}
	return next
}

// passSlotLocked hands a slot its holder is giving up to the first
// suspended job asking for one again, else to the first queued job
// (returned, for the caller to run), else frees it.
func (e *Executor) passSlotLocked() *job {
	if f := e.resumers.Front(); f != nil { // mutation: executor-resumes-before-queue
		r := e.resumers.Remove(f).(*resumer)
		r.j.holds = true
		r.j.waiting.Store(false)
		e.suspended--
		close(r.granted)
		return nil
	}
	for e.queue.Len() > 0 {
		j := e.queue.Remove(e.queue.Front()).(*job)
		j.elem = nil
		if j.scope.closed { // mutation: executor-skips-job-of-closing-scope
			continue // its scope's Close, under way, drops it
		}
		if j.state.CompareAndSwap(stateQueued, stateRunning) { // mutation: executor-starts-only-waiting-jobs
			j.holds = true
			return j
		}
	}
	e.running--
	return nil
}

// AcquireSubscription takes one of the executor's subscription slots. It
// returns a release function (idempotent) and true, or false when every
// slot is taken.
func (e *Executor) AcquireSubscription() (release func(), ok bool) {
	e.mu.Lock()
	if e.subs >= e.cfg.MaxSubscriptions {
		running, queued := e.running, e.queue.Len()
		e.mu.Unlock()
		if e.sink != nil {
			e.emitRejected("subscriptions", running, queued)
		}
		return nil, false
	}
	e.subs++
	open := e.subs
	e.mu.Unlock()
	var opened time.Time
	if e.sink != nil {
		opened = time.Now()
		e.emitSubscription(instrumentation.SubscriptionOpened, open, 0)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			e.subs--
			open := e.subs
			e.mu.Unlock()
			if e.sink != nil {
				e.emitSubscription(instrumentation.SubscriptionClosed, open, time.Since(opened))
			}
		})
	}, true
}

// Close stops admitting work and waits until every job's goroutine has
// returned or ctx ends, then ends the parked workers. Jobs still running at
// that point are reported through the logger and abandoned: Go cannot stop
// a goroutine that ignores its context.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		e.busy.Wait()
		close(done)
	}()
	select {
	case <-done:
		e.mu.Lock()
		e.stopDeadlinesLocked()
		e.mu.Unlock()
		e.quitOnce.Do(func() { close(e.quit) })
		e.goroutines.Wait()
		return nil
	case <-ctx.Done():
		// Parked workers still go; the stuck ones exit when their
		// handler returns and finds quit closed.
		e.quitOnce.Do(func() { close(e.quit) })
		st := e.Stats()
		e.logger.Warn("snodo: handlers ignored cancellation; abandoning them", "running", st.Running)
		return fmt.Errorf("executor: %d handler(s) still running after the grace period: %w", st.Running, ctx.Err())
	}
}
