// This file is the engine's part in a store that several live instances
// share: it holds this runner's lease, settles the tasks of runners whose
// lease expired, and ends its hold on a task finished or taken elsewhere.

package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

// shared is what the engine runs when its store is shared: the lease it
// holds and the watch on the store's records. A nil func is one the
// store does not offer.
type shared struct {
	release   func() // gives the lease up
	stopWatch func() // ends the watch
}

// startShared takes the runner's lease when the store offers leases, and
// starts watching the store's records when it offers a watch. It runs
// before Recover, so that the runner's lease covers every task it takes.
func (e *engine) startShared(ctx context.Context) error {
	if l, ok := e.cfg.store.(taskstore.Leaser); ok {
		release, err := l.HoldLease(ctx, e.cfg.owner)
		if err != nil {
			return err
		}
		e.shared.release = release
	}
	if w, ok := e.cfg.store.(taskstore.Watcher); ok {
		stop, err := w.Watch(ctx, e.watched)
		if err != nil {
			e.stopShared()
			return err
		}
		e.shared.stopWatch = stop
	}
	return nil
}

// stopShared ends the watch and gives the lease up; the runner's tasks
// are settled by then, so what it leaves working (resumable tasks) is
// taken by another instance at once.
func (e *engine) stopShared() {
	if e.shared.stopWatch != nil {
		e.shared.stopWatch()
		e.shared.stopWatch = nil
	}
	if e.shared.release != nil {
		e.shared.release()
		e.shared.release = nil
	}
}

// watched hears a record written by any instance. When the task is one
// this engine holds and the record says it finished, or that another
// runner now works on it, the engine's hold ends: the round it runs, if
// any, is cancelled, and nothing is written (the writer has told the
// task's listeners). A record may come twice or out of order: a finished
// task stays finished, and another owner is confirmed by reading the
// store before the hold ends.
func (e *engine) watched(rec taskstore.Record) {
	elsewhere := rec.Status == taskstore.StatusWorking && rec.Owner != "" && rec.Owner != e.cfg.owner
	if !rec.Status.Terminal() && !elsewhere {
		return
	}
	e.mu.Lock()
	t := e.tasks[rec.ID]
	e.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	if elsewhere {
		ctx, cancel := context.WithTimeout(context.Background(), e.cfg.sharedTimeout)
		cur, err := e.cfg.store.Get(ctx, rec.ID)
		cancel()
		if err == nil && !cur.Status.Terminal() && (cur.Status != taskstore.StatusWorking || cur.Owner == "" || cur.Owner == e.cfg.owner) {
			return // an older write delivered late: the task is still this runner's
		}
	}
	e.endLocked(t)
}

// leaseSweep settles, every half lease, the tasks whose runner's lease
// expired (taskstore.RecoverEach): resumable ones this runner can run are
// taken and run here, the others fail with taskstore.StoppedMessage, as
// after a restart. Each status it writes is told to the observer.
func (e *engine) leaseSweep(l taskstore.Leaser) {
	defer e.swept.Done()
	tick := time.NewTicker(max(l.LeaseDuration()/2, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-e.stopSweep:
			return
		case <-tick.C:
			if err := e.recover(context.Background(), l.LeaseDuration()); err != nil && !errors.Is(err, errClosed) && !errors.Is(err, taskstore.ErrClosed) {
				e.cfg.logger.Warn("snodo: settling the tasks of stopped instances", "error", err)
			}
		}
	}
}

// recover settles what stopped runners left (taskstore.RecoverEach) and
// runs the tasks it resumes, within timeout when timeout is positive.
func (e *engine) recover(ctx context.Context, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	e.mu.Lock()
	refusing := e.refusing
	e.mu.Unlock()
	if refusing {
		return errClosed
	}
	resumed, err := taskstore.RecoverEach(ctx, e.cfg.store, e.cfg.owner, func(r taskstore.Record) bool {
		_, ok := e.cfg.resolve(&r)
		return ok
	}, func(rec taskstore.Record, from taskstore.Status) {
		e.cfg.observe.changed(&rec, from)
	})
	for i := range resumed {
		rec := resumed[i]
		run, ok := e.cfg.resolve(&rec)
		if !ok {
			continue
		}
		t, aerr := e.adopt(&rec)
		if aerr != nil {
			return errors.Join(err, aerr)
		}
		t.mu.Lock()
		t.run = run
		e.startRound(t, rec, roundInput(&rec))
		t.mu.Unlock()
	}
	return err
}
