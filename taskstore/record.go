// This file defines the stored shape of a task: its status and its record.

package taskstore

import (
	"encoding/json"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

// Status is a task's status (the wire's, package mcp).
type Status = mcp.TaskStatus

// The statuses of a task. Completed, failed and cancelled are terminal
// (Status.Terminal).
const (
	StatusWorking       = mcp.TaskWorking
	StatusInputRequired = mcp.TaskInputRequired
	StatusCompleted     = mcp.TaskCompleted
	StatusFailed        = mcp.TaskFailed
	StatusCancelled     = mcp.TaskCancelled
)

// validStatus reports whether s is one of the five statuses.
func validStatus(s Status) bool {
	return s == StatusWorking || s == StatusInputRequired || s.Terminal()
}

// Record is everything a store keeps about one task. The JSON values are
// kept byte for byte; a store never interprets them, and shares no memory
// with its callers (what it returns is a copy).
type Record struct {
	// ID is the task id: see [NewID]. Immutable.
	ID string
	// Principal is the identity that created the task ("" for an anonymous
	// caller); only it may read or change the task. Immutable.
	Principal string
	// IdempotencyKey, when not empty, makes Create return the task the
	// same principal created with the same key instead of a new one.
	// Immutable.
	IdempotencyKey string
	// Method is the request the task runs, such as "tools/call". Immutable.
	Method string
	// Name is the component the request names: the tool for tools/call.
	// Immutable.
	Name string
	// Params is the request's params object, what running the request
	// again needs. Immutable.
	Params json.RawMessage
	// Resumable records that the tool declared it can run again from
	// Params after the process that ran it stopped. Immutable.
	Resumable bool

	// Status is the task's current status.
	Status Status
	// StatusMessage is an optional description of the current status.
	StatusMessage string
	// Result is the request's result object; present exactly when the
	// status is completed.
	Result json.RawMessage
	// Error is the JSON-RPC error object the request ended with; present
	// exactly when the status is failed.
	Error json.RawMessage
	// InputRequests is the object of outstanding input requests, keyed by
	// request key; present exactly when the status is input_required.
	InputRequests json.RawMessage
	// InputResponses is the object of responses collected for the current
	// round of input: so far, while the task waits (a client may answer
	// one request at a time), and all of them once it works again (what
	// resuming the round needs). A finished task holds none.
	InputResponses json.RawMessage
	// State is opaque state the request's handler carries from one input
	// round to the next.
	State json.RawMessage

	// CreatedAt is when the task was created; set by the store when zero.
	// Immutable.
	CreatedAt time.Time
	// UpdatedAt is when the record was last written; set by the store on
	// every write.
	UpdatedAt time.Time
	// TTL is how long the task is kept, counted from CreatedAt; zero keeps
	// it without limit.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients; zero
	// suggests none.
	PollInterval time.Duration
	// Deadline is when the work must have finished; zero sets none.
	Deadline time.Time

	// Owner names the runner executing the task ("" when none is: the task
	// is waiting for input or has finished). A runner takes a task by
	// writing its own name at the revision it read.
	Owner string
	// Revision counts the record's writes: 1 after Create, one more after
	// each Update. Update succeeds only when it carries the current value.
	Revision uint64
}

// ExpiresAt is when the record expires: CreatedAt plus TTL, or the zero
// time when it does not.
func (r *Record) ExpiresAt() time.Time {
	if r.TTL <= 0 {
		return time.Time{}
	}
	return r.CreatedAt.Add(r.TTL)
}

// Expired reports whether the record has expired at now.
func (r *Record) Expired(now time.Time) bool {
	exp := r.ExpiresAt()
	return !exp.IsZero() && !now.Before(exp)
}
