// This file is the input side of a task: the keys of its input requests,
// the state it keeps between rounds, and tasks/update.

package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/snodo-go/snodo/taskstore"
)

// A round's input requests reach the client under keys "<round>.<key>":
// keys unique over the task's lifetime, as the tasks extension requires,
// even when a handler asks with the same key in two rounds.

// wireRequests returns a round's input requests keyed for the wire.
func wireRequests(round int, reqs map[string]json.RawMessage) (json.RawMessage, error) {
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no input request")
	}
	out := make(map[string]json.RawMessage, len(reqs))
	for k, v := range reqs {
		if k == "" {
			return nil, fmt.Errorf("an input request has an empty key")
		}
		out[wireKey(round, k)] = v
	}
	return json.Marshal(out)
}

func wireKey(round int, key string) string { return strconv.Itoa(round) + "." + key }

// handlerKey returns the key a handler used for a wire key of round.
func handlerKey(round int, wire string) (string, bool) {
	return strings.CutPrefix(wire, strconv.Itoa(round)+".")
}

// state is what the engine keeps in a record's State: the input round and
// the handler's own state.
type state struct {
	Round   int             `json:"round"`
	Handler json.RawMessage `json:"handler,omitempty"`
}

func encodeState(round int, handler json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(state{Round: round, Handler: handler})
	return b
}

func decodeState(b json.RawMessage) (round int, handler json.RawMessage) {
	var s state
	if len(b) > 0 && json.Unmarshal(b, &s) == nil {
		return s.Round, s.Handler
	}
	return 0, nil
}

// update delivers answers to a task waiting for input. Answers under keys
// the task is not waiting for are ignored; once every outstanding request
// is answered, the next round starts. A task not waiting for input is
// errNotWaiting and changes nothing.
func (e *engine) update(ctx context.Context, principal, id string, responses map[string]json.RawMessage) error {
	t, rec, err := e.hold(ctx, principal, id)
	if err != nil {
		return err
	}
	if t == nil {
		return fmt.Errorf("%w (it is %s)", errNotWaiting, rec.Status)
	}
	defer t.mu.Unlock()
	if rec.Status != taskstore.StatusInputRequired {
		return fmt.Errorf("%w (it is %s)", errNotWaiting, rec.Status)
	}
	var pending, collected map[string]json.RawMessage
	if err := json.Unmarshal(rec.InputRequests, &pending); err != nil {
		return fmt.Errorf("task %s holds unreadable input requests: %w", id, err)
	}
	if len(rec.InputResponses) > 0 {
		if err := json.Unmarshal(rec.InputResponses, &collected); err != nil {
			return fmt.Errorf("task %s holds unreadable input responses: %w", id, err)
		}
	}
	if collected == nil {
		collected = map[string]json.RawMessage{}
	}
	matched := false
	for k, v := range responses {
		if _, ok := pending[k]; ok {
			collected[k] = v
			delete(pending, k)
			matched = true
		}
	}
	if !matched {
		return nil
	}
	next := rec
	next.InputResponses, _ = json.Marshal(collected)
	if len(pending) > 0 {
		next.InputRequests, _ = json.Marshal(pending)
		e.writeLocked(t, rec, next)
		return nil
	}
	next.Status, next.InputRequests, next.Owner = taskstore.StatusWorking, nil, e.cfg.owner
	stored, err := e.cfg.store.Update(ctx, next)
	if err != nil {
		return err
	}
	e.cfg.observe.changed(&stored, rec.Status)
	if t.run == nil {
		run, ok := e.cfg.resolve(&stored)
		if !ok {
			e.failLocked(t, stored, internalError("the task's tool "+stored.Name+" is no longer available"))
			return nil
		}
		t.run = run
	}
	e.startRound(t, stored, roundInput(&stored))
	return nil
}

// roundInput returns the input of a record's current round: the answers
// collected, keyed as the handler asked, and the handler's state; nil
// before any input was asked for.
func roundInput(rec *taskstore.Record) *Input {
	round, handlerState := decodeState(rec.State)
	if round == 0 {
		return nil
	}
	in := &Input{Responses: map[string]json.RawMessage{}, State: handlerState}
	var collected map[string]json.RawMessage
	_ = json.Unmarshal(rec.InputResponses, &collected)
	for k, v := range collected {
		if hk, ok := handlerKey(round, k); ok {
			in.Responses[hk] = v
		}
	}
	return in
}
