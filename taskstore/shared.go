// This file defines what a store shared by several live processes may
// offer on top of Store: a watch on its records and runners' leases.

package taskstore

import (
	"context"
	"time"
)

// Watcher is implemented by a store that other processes write at the
// same time as this one, such as one on a network service. A task runner
// that finds it learns that a task it runs was finished (cancelled, most
// often) or taken by another runner elsewhere, and stops its work.
type Watcher interface {
	// Watch calls changed with each record written after Watch returns,
	// by any process, until stop is called; it returns once the watch is
	// in place, or the error that kept it from starting (ctx bounds only
	// the start). stop ends the watch and returns once changed is no
	// longer called.
	// changed is called from one goroutine at a time and must not block
	// for long. A record may be delivered more than once, and deliveries
	// of one record may arrive out of order: Record.Revision tells which
	// is newer, and a status that is terminal stays so.
	Watch(ctx context.Context, changed func(Record)) (stop func(), err error)
}

// Leaser is implemented by a store that several live runners use at once.
// Each runner holds a lease under its name (the Owner it writes in the
// records it runs) for as long as it lives; a lease its holder stops
// renewing expires after LeaseDuration. [Recover] leaves alone the tasks
// whose owner holds a live lease, and settles those whose owner's lease
// expired as it settles what a stopped process left.
type Leaser interface {
	// HoldLease takes owner's lease and renews it until release is
	// called (ctx bounds only the taking); release gives the lease up at
	// once, so the owner's tasks are settled without waiting for it to
	// expire. A renewal that fails is tried again at the next one; the
	// lease lapses only when none lands for LeaseDuration.
	HoldLease(ctx context.Context, owner string) (release func(), err error)
	// LeaseAlive reports whether owner holds a live lease.
	LeaseAlive(ctx context.Context, owner string) (bool, error)
	// LeaseDuration is how long a lease outlives its last renewal.
	LeaseDuration() time.Duration
}
