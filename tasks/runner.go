// This file is the Runner: its options, starting it under a supervisor,
// and closing it.

package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/taskstore"
)

// Support says whether a tool's calls may run as tasks.
type Support int

const (
	// Forbidden tools always answer synchronously: the default for a tool
	// the Runner is not told about.
	Forbidden Support = iota
	// Optional tools run as a task when the request declares the tasks
	// extension and the Runner's decision (WithDecision) agrees, and
	// synchronously otherwise.
	Optional
	// Required tools cannot answer without a task: a request that does not
	// declare the extension gets -32021 (Missing required client
	// capability) naming it. The decision may still answer a call
	// synchronously, such as a round that asks for input before the work
	// starts.
	Required
)

// Tool declares how one tool runs.
type Tool struct {
	// Name is the tool's name, as registered in the Runtime.
	Name string
	// Support says whether its calls may or must run as tasks.
	Support Support
	// Resumable says the tool can run again from its arguments after the
	// process running it stopped: a task of it that was working when the
	// server stopped is resumed by the next process on the same durable
	// store, instead of failing.
	Resumable bool
}

// Call describes a tools/call for the Runner's decision.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Arguments are the call's arguments (a JSON object).
	Arguments []byte
	// HasInput reports that the call carries answers to input the tool
	// asked for (a multi round-trip retry).
	HasInput bool
	// Principal is the caller's identity ("" when anonymous).
	Principal string
}

// Limits bound a Runner. A zero field takes its default.
type Limits struct {
	// MaxTasks is the number of unfinished tasks the runner holds at once
	// (working or waiting for input); a tools/call that would create one
	// more is refused with -32603 "Task capacity exhausted". Default 1024.
	MaxTasks int
	// MaxRunning is the number of tasks whose work runs at once; the rest
	// wait, in order, for a slot. This budget is the runner's own, apart
	// from the supervisor's for ordinary requests. Default 16.
	MaxRunning int
	// Timeout is each task's deadline, counted from its creation: a task
	// not finished by then fails, saying so. Default 10 minutes.
	Timeout time.Duration
	// TTL is how long a task is kept after its creation, finished or not
	// (the ttlMs clients see); it must exceed Timeout, so a task's outcome
	// stays readable for a while. Default 1 hour.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients
	// (pollIntervalMs). Default 500 ms.
	PollInterval time.Duration
}

// The defaults of Limits, stated on its fields.
const (
	defaultMaxTasks     = 1024
	defaultMaxRunning   = 16
	defaultTimeout      = 10 * time.Minute
	defaultTTL          = time.Hour
	defaultPollInterval = 500 * time.Millisecond
)

// Option configures [New]. An invalid option makes New fail, naming it.
type Option interface {
	applyRunner(*config) error
}

type optionFunc struct {
	name string
	fn   func(*config) error
}

func (o optionFunc) applyRunner(c *config) error {
	if err := o.fn(c); err != nil {
		return fmt.Errorf("tasks: %s: %w", o.name, err)
	}
	return nil
}

type config struct {
	store  taskstore.Store
	tools  map[string]Tool
	decide func(context.Context, *Call) bool
	limits Limits
	now    func() time.Time
}

// WithStore sets where tasks are kept. Default: a new taskstore.NewMemory.
// The Runner does not close it.
func WithStore(s taskstore.Store) Option {
	return optionFunc{"WithStore", func(c *config) error {
		if s == nil {
			return errors.New("nil store")
		}
		c.store = s
		return nil
	}}
}

// WithTools declares how tools run; a tool not declared never runs as a
// task.
func WithTools(tools ...Tool) Option {
	return optionFunc{"WithTools", func(c *config) error {
		for _, t := range tools {
			switch {
			case t.Name == "":
				return errors.New("a tool without a name")
			case t.Support < Forbidden || t.Support > Required:
				return fmt.Errorf("tool %s: unknown support %d", t.Name, t.Support)
			}
			if _, dup := c.tools[t.Name]; dup {
				return fmt.Errorf("tool %s declared twice", t.Name)
			}
			c.tools[t.Name] = t
		}
		return nil
	}}
}

// WithDecision sets the per-call decision: for a call of an Optional or
// Required tool from a request that declares the extension, whether it
// runs as a task (true) or answers synchronously. Default: always a
// task.
func WithDecision(decide func(ctx context.Context, c *Call) bool) Option {
	return optionFunc{"WithDecision", func(c *config) error {
		if decide == nil {
			return errors.New("nil decision")
		}
		c.decide = decide
		return nil
	}}
}

// WithLimits bounds the Runner; see [Limits] for each field's default.
func WithLimits(l Limits) Option {
	return optionFunc{"WithLimits", func(c *config) error {
		if l.MaxTasks < 0 || l.MaxRunning < 0 || l.Timeout < 0 || l.TTL < 0 || l.PollInterval < 0 {
			return errors.New("negative limit")
		}
		c.limits = l
		return nil
	}}
}

// Runner runs the tasks of one server. Create it with [New].
type Runner struct {
	cfg   config
	owner string

	mu     sync.Mutex
	eng    *engine
	tree   tree.TaskRunner
	closed bool
}

// New returns a Runner; it runs nothing until Start.
func New(opts ...Option) (*Runner, error) {
	c := config{tools: map[string]Tool{}, now: time.Now}
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("tasks: nil option")
		}
		if err := o.applyRunner(&c); err != nil {
			return nil, err
		}
	}
	l := &c.limits
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.MaxTasks, defaultMaxTasks)
	def(&l.MaxRunning, defaultMaxRunning)
	defd(&l.Timeout, defaultTimeout)
	defd(&l.TTL, defaultTTL)
	defd(&l.PollInterval, defaultPollInterval)
	if l.TTL <= l.Timeout {
		return nil, fmt.Errorf("tasks: WithLimits: the TTL (%v) must exceed the task timeout (%v), or a task could expire before its outcome is read", l.TTL, l.Timeout)
	}
	if c.store == nil {
		c.store = taskstore.NewMemory(taskstore.Options{Now: c.now})
	}
	if c.decide == nil {
		c.decide = func(context.Context, *Call) bool { return true }
	}
	return &Runner{cfg: c, owner: "runner-" + taskstore.NewID()}, nil
}

// ErrNotStarted is returned by a Runner's operations before Start.
var ErrNotStarted = errors.New("tasks: the runner has not started")

// Start starts the Runner under sup's tree: it settles what a previous
// process left unfinished in the store (taskstore.Recover: tasks whose
// tool can resume run again, the others that were working fail saying the
// process stopped, those waiting for input keep waiting), then accepts
// tasks. resolve rebuilds a task's work from its record, for the tasks it
// resumes or that wait for input; the Runtime the Runner is installed in
// provides it. pub, when not nil, hears about every status change.
func (r *Runner) start(ctx context.Context, sup *supervisor.Supervisor, pub Publisher, resolve func(*taskstore.Record) (RunFunc, bool)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return errClosed
	case r.eng != nil:
		return errors.New("tasks: the runner has already started")
	}
	sys := tree.SystemOf(sup)
	obs := &treeObserver{}
	runner, err := sys.StartTaskRunner(tree.TaskRunnerConfig{
		Attrs: obs.attrs,
		Halt:  obs.halt,
	})
	if err != nil {
		return fmt.Errorf("tasks: starting the task runner: %w", err)
	}
	obs.tree = runner
	var observe observer = obs
	if pub != nil {
		observe = observers{obs, listenObserver{pub: pub, logger: sys.Logger()}}
	}
	l := r.cfg.limits
	eng := newEngine(engineConfig{
		store: r.cfg.store, owner: r.owner, ttl: l.TTL, pollInterval: l.PollInterval, timeout: l.Timeout,
		maxTasks: l.MaxTasks, maxRunning: l.MaxRunning, sweepInterval: time.Minute, now: r.cfg.now,
		logger: sys.Logger(), resolve: func(rec *taskstore.Record) (RunFunc, bool) {
			if t, ok := r.cfg.tools[rec.Name]; !ok || t.Support == Forbidden {
				return nil, false
			}
			return resolve(rec)
		},
		observe: observe,
	})
	obs.eng = eng
	if err := eng.start(ctx); err != nil {
		_ = eng.close(ctx)
		runner.Finish()
		return fmt.Errorf("tasks: recovering unfinished tasks: %w", err)
	}
	r.eng, r.tree = eng, runner
	return nil
}

// Close stops the Runner: no new task is accepted, every task still
// working is cancelled and marked failed with shutdownMessage (unless its
// tool is resumable: it stays working for the next process on the same
// store), tasks waiting for input stay as they are, and Close waits for
// the tasks' work to return until ctx ends. The store is not closed.
func (r *Runner) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	eng, runner := r.eng, r.tree
	r.mu.Unlock()
	if eng == nil {
		return nil
	}
	err := eng.close(ctx)
	runner.Finish()
	select {
	case <-runner.Done():
	case <-ctx.Done():
		err = errors.Join(err, ctx.Err())
	}
	return err
}

// engine returns the started engine, or ErrNotStarted.
func (r *Runner) engine() (*engine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eng == nil {
		if r.closed {
			return nil, errClosed
		}
		return nil, ErrNotStarted
	}
	return r.eng, nil
}

// treeObserver shows the engine's tasks in the supervision tree.
type treeObserver struct {
	tree tree.TaskRunner
	eng  *engine
}

func (o *treeObserver) started(rec *taskstore.Record) {
	o.tree.Started(rec.ID, tree.TaskInfo{Tool: rec.Name, Status: string(rec.Status), Created: rec.CreatedAt, Deadline: rec.Deadline})
}

func (o *treeObserver) changed(rec *taskstore.Record, _ taskstore.Status) {
	o.tree.Changed(rec.ID, string(rec.Status))
}

func (o *treeObserver) ended(id string) { o.tree.Ended(id) }

// attrs adds the engine's counts to the runner's node.
func (o *treeObserver) attrs(m map[string]string) {
	if o.eng == nil {
		return
	}
	o.eng.mu.Lock()
	held := len(o.eng.tasks)
	o.eng.mu.Unlock()
	m["held"] = fmt.Sprint(held)
	m["capacity"] = fmt.Sprint(o.eng.cfg.maxTasks)
	m["running"] = fmt.Sprint(o.eng.exec.Stats().Running)
}

// halt runs when the tree stops the runner's node (the supervisor
// closing): the engine stops accepting tasks at once; Close settles them.
func (o *treeObserver) halt() {
	if o.eng != nil {
		o.eng.refuse()
	}
}
