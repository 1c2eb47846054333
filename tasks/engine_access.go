// This file reads and cancels tasks for their principal: tasks/get and
// tasks/cancel, and the lookup tasks/update shares.

package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/taskstore"
)

// lookup reads a task for principal. Another principal's task is
// errNotFound, exactly as an unknown one: a task id reveals nothing to
// anyone else, not even that it exists.
func (e *engine) lookup(ctx context.Context, principal, id string) (taskstore.Record, error) {
	if !taskstore.ValidID(id) {
		return taskstore.Record{}, fmt.Errorf("%w: %q is not a task id", errNotFound, id)
	}
	rec, err := e.cfg.store.Get(ctx, id)
	switch {
	case errors.Is(err, taskstore.ErrNotFound):
		return rec, errNotFound
	case errors.Is(err, taskstore.ErrExpired) && rec.Principal == principal:
		return rec, errExpired
	case errors.Is(err, taskstore.ErrExpired):
		return taskstore.Record{}, errNotFound
	case err != nil:
		return rec, err
	case rec.Principal != principal: // mutation: task-visible-only-to-its-principal
		return taskstore.Record{}, errNotFound
	}
	return rec, nil
}

// get returns the task's current record.
func (e *engine) get(ctx context.Context, principal, id string) (taskstore.Record, error) {
	return e.lookup(ctx, principal, id)
}

// hold returns the engine's handle on an unfinished task of principal,
// locked, with its current record. A task this engine does not hold yet
// is adopted only while it waits for input (left so by another process,
// or by a runner that stopped): a task working elsewhere has its runner,
// and this engine takes no handle on it. A finished task, or one working
// elsewhere, returns a nil handle and its record.
func (e *engine) hold(ctx context.Context, principal, id string) (*task, taskstore.Record, error) {
	rec, err := e.lookup(ctx, principal, id)
	if err != nil || rec.Status.Terminal() {
		return nil, rec, err
	}
	if rec.Status != taskstore.StatusInputRequired && !e.holds(id) { // mutation: no-handle-on-a-task-working-elsewhere
		return nil, rec, nil
	}
	t, fresh, err := e.handle(&rec)
	if err != nil {
		return nil, rec, err
	}
	t.mu.Lock()
	// Read again under the task's lock: a transition may have landed
	// between the first read and the lock, the task even ended.
	rec, err = e.cfg.store.Get(ctx, id)
	if err != nil || rec.Status.Terminal() || t.ended {
		if fresh {
			t.ended = true
			e.forget(t)
		}
		t.mu.Unlock()
		switch {
		case err != nil:
			return nil, rec, errNotFound
		case rec.Status.Terminal():
			return nil, rec, nil
		}
		return nil, rec, fmt.Errorf("task %s is no longer held by this runner", id)
	}
	if fresh {
		e.cfg.observe.started(&rec)
		e.armDeadline(t, rec.Deadline)
	}
	return t, rec, nil
}

// holds reports whether the engine has a handle on the task id.
func (e *engine) holds(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tasks[id] != nil
}

// handle returns the engine's handle on a task, registering a new one
// (fresh) when it has none.
func (e *engine) handle(rec *taskstore.Record) (t *task, fresh bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.tasks[rec.ID]; t != nil {
		return t, false, nil
	}
	if e.closed {
		return nil, false, errClosed
	}
	t = &task{id: rec.ID, resumable: rec.Resumable}
	e.tasks[rec.ID] = t
	return t, true, nil
}

// adopt takes charge of an unfinished task when the engine starts: a
// handle, the tree's actor and the deadline.
func (e *engine) adopt(rec *taskstore.Record) (*task, error) {
	t, fresh, err := e.handle(rec)
	if err != nil || !fresh {
		return t, err
	}
	t.mu.Lock()
	e.cfg.observe.started(rec)
	e.armDeadline(t, rec.Deadline)
	t.mu.Unlock()
	return t, nil
}

// cancel asks for a task to stop. A task still unfinished becomes
// cancelled at once (its running round, if any, is cancelled and its
// result discarded); a finished one is left as it is. Either way the
// answer is the same acknowledgement.
func (e *engine) cancel(ctx context.Context, principal, id string) error {
	for range maxCancelConflicts {
		t, rec, err := e.hold(ctx, principal, id)
		if err != nil {
			return err
		}
		if t != nil {
			return e.cancelHeld(ctx, t, rec)
		}
		if rec.Status.Terminal() {
			return nil
		}
		// Working elsewhere (or here, in the moment between its runner
		// letting go of its handle and writing its end): the cancellation
		// is written here, and the store's watch tells the runner, which
		// stops the round. A conflict means the task moved meanwhile:
		// read it again.
		stored, err := e.cfg.store.Update(ctx, cancelledRecord(rec))
		if errors.Is(err, taskstore.ErrConflict) { // mutation: cancel-rereads-a-task-that-moved
			continue
		}
		if err != nil {
			return err
		}
		e.cfg.observe.changed(&stored, rec.Status)
		return nil
	}
	return fmt.Errorf("task %s changed %d times while being cancelled: %w", id, maxCancelConflicts, taskstore.ErrConflict)
}

// maxCancelConflicts bounds how often tasks/cancel reads again a task
// that moved under it.
const maxCancelConflicts = 8

// cancelHeld cancels a task this engine holds; t.mu is held and released.
func (e *engine) cancelHeld(ctx context.Context, t *task, rec taskstore.Record) error {
	defer t.mu.Unlock()
	if rec.Status.Terminal() {
		e.endLocked(t)
		return nil
	}
	stored, err := e.cfg.store.Update(ctx, cancelledRecord(rec))
	if err != nil {
		return err
	}
	e.cfg.observe.changed(&stored, rec.Status)
	e.endLocked(t)
	return nil
}

// cancelledRecord is rec cancelled by its client: no owner, no pending
// input, no handler state.
func cancelledRecord(rec taskstore.Record) taskstore.Record {
	rec.Status, rec.StatusMessage, rec.Owner = taskstore.StatusCancelled, "cancelled by the client", ""
	rec.InputRequests, rec.InputResponses, rec.State = nil, nil, nil
	return rec
}
