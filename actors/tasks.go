// This file is the task runner's part of the tree: one runner node under
// the root, and one task actor under it for each task the runner holds.
// The tasks themselves run on the task engine's executor; these actors
// keep books and show them.

package actors

import (
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// taskRunner is a task runner's node in the tree, implementing
// tree.TaskRunner.
type taskRunner struct {
	s    *system
	cfg  tree.TaskRunnerConfig
	pid  *actor.PID
	done <-chan struct{}
}

// StartTaskRunner starts a task runner under the root supervisor.
func (s *system) StartTaskRunner(cfg tree.TaskRunnerConfig) (tree.TaskRunner, error) {
	r := &taskRunner{s: s, cfg: cfg}
	pid, done, err := s.spawnTop(s.props(func() actor.Actor { return &taskRunnerActor{r: r} }), "tasks")
	if err != nil {
		return nil, err
	}
	if pid == nil {
		return nil, errors.New("actors: the task runner did not start")
	}
	r.pid, r.done = pid, done
	return r, nil
}

// Done is closed once the runner and its task actors have stopped.
func (r *taskRunner) Done() <-chan struct{} { return r.done }

// Started adds a task actor for task id. Calls for one id must be made in
// order: Started, any Changed, then Ended.
func (r *taskRunner) Started(id string, info tree.TaskInfo) {
	r.s.send(r.pid, &taskStarted{id: id, info: info})
}

// Changed records a task's new status.
func (r *taskRunner) Changed(id, status string) {
	r.s.send(r.pid, &taskChanged{id: id, status: status})
}

// Ended stops the task's actor.
func (r *taskRunner) Ended(id string) { r.s.send(r.pid, &taskEnded{id: id}) }

// Finish asks the supervisor to stop the runner once its task actors have
// stopped. It may be called more than once.
func (r *taskRunner) Finish() { r.s.send(r.pid, &finishTaskRunner{}) }

// Messages of the runner actor. All come from the task engine's
// goroutines and may arrive after it stopped.
type (
	taskStarted struct {
		id   string
		info tree.TaskInfo
	}
	taskChanged struct{ id, status string }
	taskEnded   struct{ id string }
	// taskStatus is the runner telling a task actor its status.
	taskStatus       struct{ status string }
	finishTaskRunner struct{}
)

func (*taskStarted) IgnoreDeadLetterLogging()      {}
func (*taskChanged) IgnoreDeadLetterLogging()      {}
func (*taskEnded) IgnoreDeadLetterLogging()        {}
func (*taskStatus) IgnoreDeadLetterLogging()       {}
func (*finishTaskRunner) IgnoreDeadLetterLogging() {}

// taskRunnerActor is the runner's node: it spawns and stops task actors.
type taskRunnerActor struct {
	r        *taskRunner
	tasks    map[string]*actor.PID
	props    *actor.Props
	next     actor.Actor
	finished bool // no more tasks: finishing or stopping
	reported bool // childFinished sent
	stopping bool // the runtime is stopping our children
	halted   bool
	started  int64
}

func (a *taskRunnerActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{"tasks": itoa(len(a.tasks)), "started": itoa(int(a.started))}
	if a.finished {
		attrs["state"] = "stopping"
	}
	if a.r.cfg.Attrs != nil {
		a.r.cfg.Attrs(attrs)
	}
	return tree.KindTaskRunner, attrs
}

func (a *taskRunnerActor) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case *actor.Started:
		a.tasks = map[string]*actor.PID{}
		a.props = a.r.s.leafProps(func() actor.Actor {
			next := a.next
			a.next = nil
			return next
		})
	case *taskStarted:
		if a.finished {
			return
		}
		if _, dup := a.tasks[m.id]; dup {
			return
		}
		a.started++
		a.next = &taskActor{s: a.r.s, info: m.info}
		a.tasks[m.id] = ac.SpawnPrefix(a.props, "task")
	case *taskChanged:
		if pid, ok := a.tasks[m.id]; ok {
			ac.Send(pid, &taskStatus{status: m.status})
		}
	case *taskEnded:
		if pid, ok := a.tasks[m.id]; ok {
			delete(a.tasks, m.id)
			if !a.stopping {
				ac.Stop(pid)
			}
		}
		a.reportWhenEmpty(ac)
	case *finishTaskRunner:
		if !a.finished {
			a.finished = true
			a.halt()
			for id, pid := range a.tasks {
				delete(a.tasks, id)
				ac.Stop(pid)
			}
			a.reportWhenEmpty(ac)
		}
	case *actor.Terminated:
		a.reportWhenEmpty(ac)
	case *actor.Stopping:
		a.finished, a.stopping = true, true
		a.halt()
	}
}

func (a *taskRunnerActor) halt() {
	if !a.halted {
		a.halted = true
		if h := a.r.cfg.Halt; h != nil {
			h()
		}
	}
}

func (a *taskRunnerActor) reportWhenEmpty(ac actor.Context) {
	if a.finished && !a.reported && !a.stopping && len(ac.Children()) == 0 {
		a.reported = true
		ac.Send(ac.Parent(), &childFinished{pid: ac.Self()})
	}
}

// taskActor stands for one task. It only keeps books: the task's work
// runs on the engine's executor, and stopping the actor does not stop it
// (the engine ends the actor when the task ends, not the reverse).
type taskActor struct {
	s    *system
	info tree.TaskInfo
}

func (a *taskActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{
		"tool":   a.info.Tool,
		"status": a.info.Status,
		"age":    time.Since(a.info.Created).Round(time.Millisecond).String(),
	}
	if !a.info.Deadline.IsZero() {
		attrs["deadline"] = a.info.Deadline.UTC().Format(time.RFC3339Nano)
	}
	return tree.KindTask, attrs
}

func (a *taskActor) Receive(ac actor.Context) {
	defer a.s.logPanic(ac)
	if a.s.leafReceive(ac, a) {
		return
	}
	if m, ok := ac.Message().(*taskStatus); ok {
		a.info.Status = m.status
	}
}
