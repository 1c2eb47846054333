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
	case rec.Principal != principal:
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
// (left waiting for input by another process) is adopted. A finished task
// returns a nil handle and its record.
func (e *engine) hold(ctx context.Context, principal, id string) (*task, taskstore.Record, error) {
	rec, err := e.lookup(ctx, principal, id)
	if err != nil {
		return nil, rec, err
	}
	if rec.Status.Terminal() {
		return nil, rec, nil
	}
	t, err := e.adopt(&rec)
	if err != nil {
		return nil, rec, err
	}
	t.mu.Lock()
	// Read again under the task's lock: a transition may have landed
	// between the first read and the lock.
	if rec, err = e.cfg.store.Get(ctx, id); err != nil {
		t.mu.Unlock()
		return nil, rec, errNotFound
	}
	return t, rec, nil
}

// adopt returns the engine's handle on an unfinished task, registering one
// (with the task's deadline) if the engine has none.
func (e *engine) adopt(rec *taskstore.Record) (*task, error) {
	e.mu.Lock()
	if t := e.tasks[rec.ID]; t != nil {
		e.mu.Unlock()
		return t, nil
	}
	if e.closed {
		e.mu.Unlock()
		return nil, errClosed
	}
	t := &task{id: rec.ID, resumable: rec.Resumable}
	e.tasks[rec.ID] = t
	e.mu.Unlock()
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
	t, rec, err := e.hold(ctx, principal, id)
	if err != nil || t == nil {
		return err
	}
	defer t.mu.Unlock()
	if rec.Status.Terminal() {
		e.endLocked(t)
		return nil
	}
	next := rec
	next.Status, next.StatusMessage, next.Owner = taskstore.StatusCancelled, "cancelled by the client", ""
	next.InputRequests, next.InputResponses, next.State = nil, nil, nil
	stored, err := e.cfg.store.Update(ctx, next)
	if err != nil {
		return err
	}
	e.cfg.observe.changed(&stored)
	e.endLocked(t)
	return nil
}
