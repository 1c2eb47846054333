// This file settles the tasks a stopped process left unfinished.

package taskstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// StoppedMessage is the status message of a task that was running when the
// process running it stopped and that could not be resumed.
const StoppedMessage = "the server process stopped while the task was running, and the task could not be resumed"

// stoppedError is the JSON-RPC error (-32603, internal error) such a task
// fails with.
var stoppedError = mustJSON(map[string]any{"code": -32603, "message": StoppedMessage})

// ResumedMessage is the status message of a task that Recover handed to a
// new owner to run again.
const ResumedMessage = "resumed after the server process restarted"

// Recover settles what the process or processes that used s before left
// unfinished, for a runner named owner that is about to start. It must run
// before that runner accepts work. When s is not a [Leaser], it must run
// only when no other runner uses s (one process per store, as a file
// store on one machine guarantees). When s is a Leaser, a task whose
// Owner is owner, or holds a live lease, has a runner alive and is left
// alone; the others are settled, so Recover may run at any time, on any
// process, as often as needed. For each unfinished task:
//
//   - one waiting for input (input_required) ran no code when the process
//     stopped: it is left as it is, ownerless, for tasks/update to go on;
//   - one that was working is resumed if it is resumable (its tool declared
//     it) and canResume accepts it (nil accepts every resumable task): it
//     is taken for owner, keeps its status, and is returned for the runner
//     to run again from its Params;
//   - any other that was working is marked failed with a -32603 error and
//     status message [StoppedMessage], so no task stays "working" forever.
//
// A task someone else changes meanwhile ([ErrConflict]) is read again and
// settled once more; one that finishes or expires meanwhile is skipped.
func Recover(ctx context.Context, s Store, owner string, canResume func(Record) bool) (resumed []Record, err error) {
	return RecoverEach(ctx, s, owner, canResume, nil)
}

// RecoverEach is [Recover] that also calls wrote, when not nil, with each
// record it stores and the status the task had before, so that a runner
// can tell the task's listeners.
func RecoverEach(ctx context.Context, s Store, owner string, canResume func(Record) bool, wrote func(rec Record, from Status)) (resumed []Record, err error) {
	if owner == "" {
		return nil, errors.New("taskstore: Recover needs the new owner's name")
	}
	recs, err := s.Unfinished(ctx)
	if err != nil {
		return nil, err
	}
	leases, _ := s.(Leaser)
	for _, r := range recs {
		for attempt := 1; ; attempt++ {
			var out *Record
			alive, err := runnerAlive(ctx, leases, r.Owner, owner)
			if err == nil && !alive {
				out, err = settle(ctx, s, r, owner, canResume, wrote)
			}
			if errors.Is(err, ErrConflict) && attempt < 4 {
				if r, err = s.Get(ctx, r.ID); err == nil {
					continue
				}
			}
			switch {
			case err == nil:
				if out != nil {
					resumed = append(resumed, *out)
				}
			case errors.Is(err, ErrTerminal), errors.Is(err, ErrExpired), errors.Is(err, ErrNotFound):
				// Finished, expired or removed meanwhile: nothing to settle.
			default:
				return resumed, fmt.Errorf("taskstore: recovering task %s: %w", r.ID, err)
			}
			break
		}
	}
	return resumed, nil
}

// runnerAlive reports whether the task's runner, named taskOwner, is
// alive elsewhere: it is the recovering runner itself, or holds a live
// lease. Without leases no runner is.
func runnerAlive(ctx context.Context, leases Leaser, taskOwner, owner string) (bool, error) {
	switch {
	case leases == nil || taskOwner == "":
		return false, nil
	case taskOwner == owner:
		return true, nil
	}
	return leases.LeaseAlive(ctx, taskOwner)
}

// settle recovers one task; it returns the record when the task is to be
// resumed.
func settle(ctx context.Context, s Store, r Record, owner string, canResume func(Record) bool, wrote func(Record, Status)) (*Record, error) {
	from := r.Status
	update := func(next Record) (Record, error) {
		out, err := s.Update(ctx, next)
		if err == nil && wrote != nil {
			wrote(out, from)
		}
		return out, err
	}
	switch {
	case r.Status.Terminal():
		return nil, nil
	case r.Status == StatusInputRequired:
		if r.Owner == "" {
			return nil, nil
		}
		r.Owner = ""
		_, err := update(r)
		return nil, err
	case r.Resumable && (canResume == nil || canResume(r)):
		r.Owner = owner
		r.StatusMessage = ResumedMessage
		out, err := update(r)
		if err != nil {
			return nil, err
		}
		return &out, nil
	default:
		r.Owner = ""
		r.Status = StatusFailed
		r.StatusMessage = StoppedMessage
		r.Error = stoppedError
		r.InputResponses, r.State = nil, nil
		_, err := update(r)
		return nil, err
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
