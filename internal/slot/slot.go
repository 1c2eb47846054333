// Package slot is the contract between the code that runs a request in a
// bounded execution slot (internal/executor) and code inside the request
// that must wait for something else (dispatch's component policies): the
// waiter gives its slot back for the wait and takes one again after it,
// so waiting work never holds what running work needs.
//
// It imports only the standard library, so both sides may import it
// without importing each other.
package slot

import "context"

// Slot is the execution slot of the work running under a context.
type Slot interface {
	// Release gives the slot back while the work waits; the next work
	// waiting for a slot may start. Releasing a slot not held does
	// nothing.
	Release()
	// Reacquire takes a slot again, ahead of work not yet started. It
	// returns nil once the slot is held, or ctx's error when ctx ends
	// first: the work then holds no slot and must not run further
	// application code.
	Reacquire(ctx context.Context) error
}

type key struct{}

// Key is the context key under which a Slot is found. An implementation
// answers it from its context's Value method (so that attaching a Slot
// costs no allocation); [With] is the general way.
var Key any = key{}

// With returns ctx carrying s.
func With(ctx context.Context, s Slot) context.Context { return context.WithValue(ctx, Key, s) }

// From returns the Slot ctx carries, or nil when the work holds none (an
// in-process call, a test).
func From(ctx context.Context) Slot {
	s, _ := ctx.Value(Key).(Slot)
	return s
}
