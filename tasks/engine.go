// This file is the task engine: it creates tasks in the store, runs their
// work under the task budget, and records how each round ended. The
// protocol (tasks/get, tasks/update, tasks/cancel) and the actor tree sit
// on top of it.

package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/taskstore"
)

// RunFunc runs one round of a task's work: the first with a nil Input, each
// later one with the answers to the input the previous round asked for.
// Its context ends when the task is cancelled, reaches its deadline, or
// the engine closes.
type RunFunc func(ctx context.Context, in *Input) Outcome

// Input is what a round after the first receives: the client's answers
// keyed as the previous round asked (an object of key → response), and
// the state that round returned.
type Input struct {
	// Responses are the client's answers, keyed as the previous round's
	// InputRequests were.
	Responses map[string]json.RawMessage
	// State is what the previous round returned in Outcome.State.
	State json.RawMessage
}

// Outcome is how a round ended: exactly one of Result (a result object:
// the task completes), Error (a JSON-RPC error object: the task fails) or
// InputRequests (an object of key → input request: the task waits for
// input, keeping State for the next round).
type Outcome struct {
	// Result is the tool's result object; the task completes with it.
	Result json.RawMessage
	// Error is a JSON-RPC error object; the task fails with it.
	Error json.RawMessage
	// InputRequests are the input requests, by key; the task waits for
	// their answers.
	InputRequests map[string]json.RawMessage
	// State is kept with a waiting task and handed to the next round
	// as Input.State.
	State json.RawMessage
}

// call is a request to start a task.
type call struct {
	principal      string
	idempotencyKey string
	method, name   string
	params         json.RawMessage
	resumable      bool
	run            RunFunc
}

// observer hears about the tasks the engine holds: the actor tree shows
// them, and listen streams hear about status changes. changed gets every
// write of a task's state, with the status the task had before it (the
// same status when only its outstanding input requests changed). A task's
// calls come in the order of its transitions. Its methods must not block.
type observer interface {
	started(rec *taskstore.Record)
	changed(rec *taskstore.Record, from taskstore.Status)
	ended(id string)
}

type nopObserver struct{}

func (nopObserver) started(*taskstore.Record)                   {}
func (nopObserver) changed(*taskstore.Record, taskstore.Status) {}
func (nopObserver) ended(string)                                {}

// engineConfig is the engine's configuration, defaults applied.
type engineConfig struct {
	store         taskstore.Store
	owner         string
	ttl           time.Duration
	pollInterval  time.Duration
	timeout       time.Duration
	maxTasks      int
	maxRunning    int
	sweepInterval time.Duration
	sharedTimeout time.Duration // bounds a read the watch makes
	now           func() time.Time
	logger        *slog.Logger
	resolve       func(rec *taskstore.Record) (RunFunc, bool)
	observe       observer
}

// defaultSharedTimeout bounds each read the engine makes when the watch of
// a shared store reports a task it holds taken elsewhere.
const defaultSharedTimeout = 10 * time.Second

// engine holds the tasks this process runs.
type engine struct {
	cfg   engineConfig
	exec  *executor.Executor
	scope *executor.Scope

	mu       sync.Mutex
	tasks    map[string]*task // the unfinished tasks this engine holds
	closed   bool             // close has run
	refusing bool             // no new task: closing, or the tree stopped

	stopSweep chan struct{}
	swept     sync.WaitGroup
	shared    shared // lease and watch, on a shared store
}

// task is the engine's handle on one unfinished task.
type task struct {
	id        string
	mu        sync.Mutex // serializes the task's transitions
	run       RunFunc
	resumable bool
	ticket    *executor.Ticket // the round running, if any
	timer     *time.Timer      // the deadline
	ended     bool
}

// Errors of the engine; the protocol layer maps them to JSON-RPC errors.
var (
	errFull       = errors.New("task capacity exhausted")
	errClosed     = errors.New("the task runner has stopped")
	errNotFound   = errors.New("task not found")
	errExpired    = errors.New("task has expired")
	errNotWaiting = errors.New("task is not waiting for input")
)

func newEngine(cfg engineConfig) *engine {
	if cfg.observe == nil {
		cfg.observe = nopObserver{}
	}
	if cfg.sharedTimeout <= 0 {
		cfg.sharedTimeout = defaultSharedTimeout
	}
	e := &engine{
		cfg: cfg,
		exec: executor.New(executor.Config{
			MaxConcurrency: cfg.maxRunning,
			MaxQueue:       cfg.maxTasks,
			Timeout:        -1,
			Logger:         cfg.logger,
		}),
		tasks:     map[string]*task{},
		stopSweep: make(chan struct{}),
	}
	e.scope = e.exec.NewScope(context.Background())
	return e
}

// now is the engine's clock in the form records keep.
func (e *engine) now() time.Time { return e.cfg.now().UTC().Round(0) }

// create stores a new task and starts its first round. An idempotency key
// the principal already used returns that task and starts nothing.
func (e *engine) create(ctx context.Context, c call) (taskstore.Record, error) {
	e.mu.Lock()
	switch {
	case e.closed || e.refusing:
		e.mu.Unlock()
		return taskstore.Record{}, errClosed
	case len(e.tasks) >= e.cfg.maxTasks:
		e.mu.Unlock()
		return taskstore.Record{}, fmt.Errorf("%w: %d unfinished tasks, the limit", errFull, e.cfg.maxTasks)
	}
	t := &task{id: taskstore.NewID(), run: c.run, resumable: c.resumable}
	e.tasks[t.id] = t // holds the place while the store writes
	e.mu.Unlock()

	now := e.now()
	rec := taskstore.Record{
		ID: t.id, Principal: c.principal, IdempotencyKey: c.idempotencyKey,
		Method: c.method, Name: c.name, Params: c.params, Resumable: c.resumable,
		Status: taskstore.StatusWorking, CreatedAt: now, TTL: e.cfg.ttl, PollInterval: e.cfg.pollInterval,
		Deadline: now.Add(e.cfg.timeout), Owner: e.cfg.owner,
	}
	stored, created, err := e.cfg.store.Create(ctx, rec)
	if err != nil || !created {
		e.forget(t)
		return stored, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e.cfg.observe.started(&stored)
	e.armDeadline(t, stored.Deadline)
	e.startRound(t, stored, nil)
	return stored, nil
}

// forget drops the engine's handle on a task (and no newer handle).
func (e *engine) forget(t *task) {
	e.mu.Lock()
	if e.tasks[t.id] == t {
		delete(e.tasks, t.id)
	}
	e.mu.Unlock()
}

// startRound submits one round of t's work; t.mu is held.
func (e *engine) startRound(t *task, rec taskstore.Record, in *Input) {
	run := t.run
	ticket, err := e.scope.Submit(nil, executor.Job{
		Timeout: -1,
		Run: func(ctx context.Context) any {
			out := runIsolated(ctx, run, in, e.cfg.logger, rec.Name)
			e.finishRound(ctx, t, out)
			return nil
		},
		Done: func(executor.Result) {},
	})
	if err != nil {
		// The budget admits as many tasks as the engine holds, so this is
		// the engine closing under the task.
		e.failLocked(t, rec, internalError("the task could not be started: "+err.Error()))
		return
	}
	t.ticket = ticket
}

// runIsolated runs one round, turning a panic into a failed outcome.
func runIsolated(ctx context.Context, run RunFunc, in *Input, logger *slog.Logger, name string) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error("snodo: task handler panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
			out = Outcome{Error: internalError("Internal error")}
		}
	}()
	return run(ctx, in)
}

// finishRound records how a round ended. A round whose task was
// cancelled, timed out or stopped meanwhile records nothing: the first
// transition won.
func (e *engine) finishRound(ctx context.Context, t *task, out Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ticket = nil
	if t.ended || ctx.Err() != nil {
		return
	}
	rec, err := e.cfg.store.Get(context.Background(), t.id)
	if err != nil {
		e.endLocked(t)
		return
	}
	next := rec
	next.Owner, next.StatusMessage, next.InputResponses = "", "", nil
	switch {
	case out.Error != nil:
		next.Status, next.Error, next.State = taskstore.StatusFailed, out.Error, nil
	case out.InputRequests != nil:
		round, _ := decodeState(rec.State)
		round++
		reqs, err := wireRequests(round, out.InputRequests)
		if err != nil {
			e.failLocked(t, rec, internalError("the task asked for input it cannot send: "+err.Error()))
			return
		}
		next.Status, next.InputRequests, next.State = taskstore.StatusInputRequired, reqs, encodeState(round, out.State)
	case out.Result != nil:
		next.Status, next.Result, next.State = taskstore.StatusCompleted, out.Result, nil
	default:
		next.Status, next.Error, next.State = taskstore.StatusFailed, internalError("the task ended without a result"), nil
	}
	e.writeLocked(t, rec, next)
}

// writeLocked stores next over rec and tells the observer; a result too
// large for the store fails the task instead, saying so. t.mu is held.
func (e *engine) writeLocked(t *task, rec, next taskstore.Record) {
	stored, err := e.cfg.store.Update(context.Background(), next)
	if errors.Is(err, taskstore.ErrTooLarge) || errors.Is(err, taskstore.ErrInvalid) {
		// What the round produced cannot be kept (over the store's size
		// limit, or not a JSON object): the task fails, saying why.
		e.failLocked(t, rec, internalError("the task's outcome cannot be kept: "+err.Error()))
		return
	}
	if err != nil {
		e.cfg.logger.Error("snodo: recording a task's status", "task", t.id, "status", next.Status, "error", err)
		if !errors.Is(err, taskstore.ErrConflict) {
			e.endLocked(t)
		}
		return
	}
	e.cfg.observe.changed(&stored, rec.Status)
	if stored.Status.Terminal() {
		e.endLocked(t)
	}
}

// failLocked marks t failed with the JSON-RPC error errObj; t.mu is held.
func (e *engine) failLocked(t *task, rec taskstore.Record, errObj json.RawMessage) {
	next := rec
	next.Status, next.Error, next.Owner = taskstore.StatusFailed, errObj, ""
	next.Result, next.InputRequests, next.InputResponses, next.State = nil, nil, nil, nil
	var je struct{ Message string }
	_ = json.Unmarshal(errObj, &je)
	next.StatusMessage = je.Message
	stored, err := e.cfg.store.Update(context.Background(), next)
	if err != nil {
		e.cfg.logger.Error("snodo: recording a task's failure", "task", t.id, "error", err)
	} else {
		e.cfg.observe.changed(&stored, rec.Status)
	}
	e.endLocked(t)
}

// endLocked releases t: its running round is cancelled, its deadline
// stopped, its place in the budget freed. t.mu is held.
func (e *engine) endLocked(t *task) {
	if t.ended {
		return
	}
	t.ended = true
	if t.ticket != nil {
		t.ticket.Cancel()
		t.ticket = nil
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	e.forget(t)
	e.cfg.observe.ended(t.id)
}

// armDeadline starts t's deadline timer; t.mu is held.
func (e *engine) armDeadline(t *task, deadline time.Time) {
	if deadline.IsZero() {
		return
	}
	t.timer = time.AfterFunc(deadline.Sub(e.cfg.now()), func() { e.deadline(t) })
}

// deadline fails t when its deadline passes before it finished.
func (e *engine) deadline(t *task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	rec, err := e.cfg.store.Get(context.Background(), t.id)
	if err != nil || rec.Status.Terminal() {
		e.endLocked(t)
		return
	}
	e.failLocked(t, rec, internalError(fmt.Sprintf("the task did not finish within its deadline (%v)", e.cfg.timeout)))
}

// internalError is a JSON-RPC internal error (-32603) object.
func internalError(message string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"code": -32603, "message": message})
	return b
}
