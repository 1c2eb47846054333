// This file defines the Store interface, its options and its errors.

package taskstore

import (
	"context"
	"errors"
	"time"
)

// Store keeps task records. Every method is safe for concurrent use. The
// package documentation lists the rules a store enforces; the storetest
// package checks them.
type Store interface {
	// Create stores a new record with revision 1, setting CreatedAt (when
	// zero) and UpdatedAt. When rec.IdempotencyKey is set and the same
	// principal already has a live record with that key, Create stores
	// nothing and returns that record with created false (or
	// [ErrKeyReused] when it runs another method or names another
	// component). A record whose id is taken is [ErrExists]; an invalid
	// one [ErrInvalid] or [ErrTooLarge].
	Create(ctx context.Context, rec Record) (stored Record, created bool, err error)
	// Get returns the record with this id: [ErrNotFound] when there is
	// none, or the record and [ErrExpired] when its TTL has passed.
	Get(ctx context.Context, id string) (Record, error)
	// Update replaces the record whose id and revision next carries,
	// setting UpdatedAt and the next revision, and returns what it stored.
	// Another revision is [ErrConflict]; a change to a finished task
	// [ErrTerminal]; a change to an immutable field or a payload that does
	// not fit the status [ErrInvalid]; an oversized value [ErrTooLarge]; an
	// expired record [ErrExpired]; a missing one [ErrNotFound].
	Update(ctx context.Context, next Record) (Record, error)
	// Unfinished returns every live record that is neither completed,
	// failed nor cancelled, oldest first: what a process that restarts
	// must recover (see [Recover]).
	Unfinished(ctx context.Context) ([]Record, error)
	// Expire deletes every record whose TTL has passed and returns how many
	// it deleted.
	Expire(ctx context.Context) (int, error)
	// Close releases the store. Later calls return [ErrClosed].
	Close() error
}

// DefaultMaxValueBytes is the default of [Options.MaxValueBytes].
const DefaultMaxValueBytes = 1 << 20

// Options configure a store. The zero value is the defaults.
type Options struct {
	// Now returns the current time, against which TTLs are measured and
	// UpdatedAt is set. Default time.Now.
	Now func() time.Time
	// MaxValueBytes bounds each JSON value a record holds (Params, Result,
	// Error, InputRequests, InputResponses, State). Default
	// DefaultMaxValueBytes (1 MiB).
	MaxValueBytes int
}

// WithDefaults returns o with every unset field at its default.
func (o Options) WithDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxValueBytes <= 0 {
		o.MaxValueBytes = DefaultMaxValueBytes
	}
	return o
}

// now returns the current time in UTC without a monotonic reading, the
// form records keep.
func (o *Options) now() time.Time { return o.Now().UTC().Round(0) }

// Errors a store returns, wrapped with the details of the refusal.
var (
	ErrNotFound  = errors.New("taskstore: task not found")
	ErrExpired   = errors.New("taskstore: task has expired")
	ErrExists    = errors.New("taskstore: task id already in use")
	ErrConflict  = errors.New("taskstore: revision conflict")
	ErrTerminal  = errors.New("taskstore: task has already finished")
	ErrInvalid   = errors.New("taskstore: invalid record")
	ErrTooLarge  = errors.New("taskstore: value too large")
	ErrKeyReused = errors.New("taskstore: idempotency key already used for another call")
	ErrClosed    = errors.New("taskstore: store closed")
)
