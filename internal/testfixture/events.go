// This file is a recording instrumentation sink.

package testfixture

import (
	"context"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/instrumentation"
)

// Events is an instrumentation.Sink that records every event, in order,
// for tests to assert on. It is safe for concurrent use.
type Events struct {
	mu     sync.Mutex
	events []any
	// OnStart, when set, supplies the context DispatchStart returns (for
	// tests that follow a value from the sink to the handler).
	OnStart func(ctx context.Context, e instrumentation.DispatchStart) context.Context
}

var _ instrumentation.Sink = (*Events)(nil)

func (r *Events) add(e any) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// DispatchStart records e.
func (r *Events) DispatchStart(ctx context.Context, e instrumentation.DispatchStart) context.Context {
	r.add(e)
	if r.OnStart != nil {
		return r.OnStart(ctx, e)
	}
	return ctx
}

// DispatchStop records e.
func (r *Events) DispatchStop(_ context.Context, e instrumentation.DispatchStop) { r.add(e) }

// DispatchException records e.
func (r *Events) DispatchException(_ context.Context, e instrumentation.DispatchException) {
	r.add(e)
}

// Executor records e.
func (r *Events) Executor(e instrumentation.ExecutorEvent) { r.add(e) }

// Subscription records e.
func (r *Events) Subscription(e instrumentation.SubscriptionEvent) { r.add(e) }

// Refusal records e.
func (r *Events) Refusal(e instrumentation.RefusalEvent) { r.add(e) }

// Policy records e.
func (r *Events) Policy(e instrumentation.PolicyEvent) { r.add(e) }

// All returns a copy of every event recorded so far: values of the
// instrumentation event types.
func (r *Events) All() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Reset forgets the events recorded so far.
func (r *Events) Reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

// EventsOf returns the recorded events of type T, in order.
func EventsOf[T any](r *Events) []T {
	var out []T
	for _, e := range r.All() {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
