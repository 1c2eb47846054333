// This file starts and stops the engine: recovering what a stopped
// process left, expiring old tasks, and settling what is unfinished at
// shutdown.

package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

// shutdownMessage is the status message of a task that was running when
// its server shut down and that cannot resume.
const shutdownMessage = "the server shut down while the task was running"

// start recovers the tasks the store's previous users left unfinished
// (taskstore.Recover), takes charge of them, and starts the expiry sweep.
// On a store that several instances share it first takes the runner's
// lease and watches the records (see startShared), and then settles,
// every half lease, the tasks of instances whose lease expired.
func (e *engine) start(ctx context.Context) error {
	if err := e.startShared(ctx); err != nil {
		return err
	}
	if err := e.recover(ctx, 0); err != nil {
		return err
	}
	waiting, err := e.cfg.store.Unfinished(ctx)
	if err != nil {
		return err
	}
	for i := range waiting {
		if waiting[i].Status == taskstore.StatusInputRequired {
			if _, err := e.adopt(&waiting[i]); err != nil {
				return err
			}
		}
	}
	e.swept.Add(1)
	go e.sweep()
	if l, ok := e.cfg.store.(taskstore.Leaser); ok {
		e.swept.Add(1)
		go e.leaseSweep(l)
	}
	return nil
}

// sweep deletes expired tasks from the store every sweep interval.
func (e *engine) sweep() {
	defer e.swept.Done()
	tick := time.NewTicker(e.cfg.sweepInterval)
	defer tick.Stop()
	for {
		select {
		case <-e.stopSweep:
			return
		case <-tick.C:
			if _, err := e.cfg.store.Expire(context.Background()); err != nil && !errors.Is(err, taskstore.ErrClosed) {
				e.cfg.logger.Warn("snodo: expiring tasks", "error", err)
			}
		}
	}
}

// refuse stops the engine from taking new tasks and cancels every round
// running, at once and without waiting: the supervision tree is stopping.
// close settles the tasks.
func (e *engine) refuse() {
	e.mu.Lock()
	e.refusing = true
	e.mu.Unlock()
	e.scope.Close()
}

// close stops the engine: it refuses new tasks, cancels every running
// round, marks each task that was running failed with shutdownMessage
// unless it can resume (then it stays working for the next process's
// Recover), leaves tasks waiting for input as they are, and waits for the
// rounds' goroutines until ctx ends.
func (e *engine) close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed, e.refusing = true, true
	held := make([]*task, 0, len(e.tasks))
	for _, t := range e.tasks {
		held = append(held, t)
	}
	e.mu.Unlock()
	close(e.stopSweep)
	e.swept.Wait()
	if e.shared.stopWatch != nil {
		e.shared.stopWatch() // the tasks are settled here from now on
		e.shared.stopWatch = nil
	}
	for _, t := range held {
		t.mu.Lock()
		if !t.ended {
			rec, err := e.cfg.store.Get(context.Background(), t.id)
			// A task another instance runs now is left to it.
			mine := rec.Owner == e.cfg.owner
			if err == nil && rec.Status == taskstore.StatusWorking && mine && !(t.resumable && rec.Resumable) {
				e.failLocked(t, rec, internalError(shutdownMessage))
			}
			e.endLocked(t)
		}
		t.mu.Unlock()
	}
	e.scope.Close()
	err := e.exec.Close(ctx)
	e.stopShared()
	return err
}
