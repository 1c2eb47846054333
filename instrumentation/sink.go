package instrumentation

// The Sink interface and the events it receives.

import (
	"context"
	"time"
)

// Sink receives instrumentation events. Embed [Nop] in an implementation
// to handle only some events and to stay source-compatible when events
// are added.
//
// Every admitted call produces DispatchStart followed by exactly one of
// DispatchStop or DispatchException, on the same goroutine. The context
// DispatchStart returns is the one the handler runs with and the one the
// matching DispatchStop or DispatchException receives, so a tracer can
// keep its span there.
type Sink interface {
	// DispatchStart is called before an admitted call runs.
	DispatchStart(ctx context.Context, e DispatchStart) context.Context
	// DispatchStop is called when the call produced its outcome.
	DispatchStop(ctx context.Context, e DispatchStop)
	// DispatchException is called instead of DispatchStop when
	// application code panicked.
	DispatchException(ctx context.Context, e DispatchException)
	// Executor is called for each executor decision: admission,
	// rejection, start and end of a job.
	Executor(e ExecutorEvent)
	// Subscription is called when a subscription stream opens, publishes,
	// overflows or closes.
	Subscription(e SubscriptionEvent)
	// Refusal is called when a transport refuses a request on its own,
	// before the dispatch core sees it.
	Refusal(e RefusalEvent)
	// Policy is called for each decision of a component policy: a call
	// admitted, waiting, refused, cancelled while waiting, or timed out.
	Policy(e PolicyEvent)
}

// Nop is a Sink that does nothing.
type Nop struct{}

// DispatchStart returns ctx.
func (Nop) DispatchStart(ctx context.Context, _ DispatchStart) context.Context { return ctx }

// DispatchStop does nothing.
func (Nop) DispatchStop(context.Context, DispatchStop) {}

// DispatchException does nothing.
func (Nop) DispatchException(context.Context, DispatchException) {}

// Executor does nothing.
func (Nop) Executor(ExecutorEvent) {}

// Subscription does nothing.
func (Nop) Subscription(SubscriptionEvent) {}

// Refusal does nothing.
func (Nop) Refusal(RefusalEvent) {}

// Policy does nothing.
func (Nop) Policy(PolicyEvent) {}

// Call identifies an admitted call in dispatch events.
type Call struct {
	// Method is the JSON-RPC method, one the server serves.
	Method string
	// Component is the registered tool, prompt, resource URI or resource
	// template the call addresses, or "" when it addresses none (lists,
	// discovery) or names one that is not registered.
	Component string
	// RequestID is the JSON-RPC id as text (strings quoted), for
	// correlation with logs and the supervision tree.
	RequestID string
	// ProtocolVersion is the revision serving the call.
	ProtocolVersion string
	// Transport is "stdio", "http" or "direct".
	Transport string
	// Trace is the W3C trace context the request carried in its _meta;
	// zero when it carried none or an invalid one.
	Trace TraceContext
}

// DispatchStart describes a call about to run.
type DispatchStart struct {
	Call
	// Time is when the call started.
	Time time.Time
}

// Outcome is how a call ended.
// Its value is its name, as metric labels use it.
type Outcome string

const (
	// OutcomeResult: a complete result.
	OutcomeResult Outcome = "result"
	// OutcomeToolError: a tools/call result with isError set (the tool
	// failed in a way the model can read).
	OutcomeToolError Outcome = "tool_error"
	// OutcomeInputRequired: the handler asked the client for input (a
	// multi round-trip request).
	OutcomeInputRequired Outcome = "input_required"
	// OutcomeError: a JSON-RPC error; DispatchStop.ErrorCode says which.
	OutcomeError Outcome = "error"
	// OutcomeCancelled: the call's context ended before it returned
	// (client cancellation, disconnect, deadline, shutdown); the
	// transport does not send what it produced.
	OutcomeCancelled Outcome = "cancelled"
)

// DispatchStop describes a call that ended with an outcome.
type DispatchStop struct {
	Call
	// Duration is the time from DispatchStart to the outcome.
	Duration time.Duration
	// Outcome is how the call ended.
	Outcome Outcome
	// ErrorCode is the JSON-RPC error code for OutcomeError, else 0.
	ErrorCode int64
}

// DispatchException describes a call whose application code panicked.
// The client got -32603; the panic value and stack went to the Runtime's
// logger only, since a panic value can hold anything.
type DispatchException struct {
	Call
	// Duration is the time from DispatchStart to the panic's recovery.
	Duration time.Duration
	// Kind is "panic".
	Kind string
	// PanicType is the Go type of the panic value, such as "string" or
	// "runtime.boundsError".
	PanicType string
}

// ExecutorEventKind says what an executor did.
// Its value is its name, as metric labels use it.
type ExecutorEventKind string

const (
	// ExecutorAdmitted: a job was accepted; it runs at once or waits in
	// the queue (Queued says which).
	ExecutorAdmitted ExecutorEventKind = "admitted"
	// ExecutorRejected: a job was refused (Reason says why).
	ExecutorRejected ExecutorEventKind = "rejected"
	// ExecutorStarted: a job got a slot after Wait in the queue.
	ExecutorStarted ExecutorEventKind = "started"
	// ExecutorFinished: a job reached its end (Status says which).
	ExecutorFinished ExecutorEventKind = "finished"
)

// ExecutorEvent describes one executor decision. Running and QueueDepth
// are the executor's counts just after it.
type ExecutorEvent struct {
	// Kind says what the executor did.
	Kind ExecutorEventKind
	// Running is the number of jobs holding a slot.
	Running int
	// QueueDepth is the number of jobs waiting for one.
	QueueDepth int
	// Queued is set on ExecutorAdmitted when the job had to wait.
	Queued bool
	// Reason is set on ExecutorRejected: "overloaded" (every slot busy
	// and the queue full) or "duplicate" (the key is in flight).
	Reason string
	// Wait is set on ExecutorStarted: the time the job spent queued.
	Wait time.Duration
	// Status is set on ExecutorFinished: "completed", "timed_out",
	// "failed" (the job panicked) or "cancelled".
	Status string
	// Duration is set on ExecutorFinished: the time since admission.
	Duration time.Duration
}

// SubscriptionEventKind says what happened to a subscription stream.
// Its value is its name, as metric labels use it.
type SubscriptionEventKind string

const (
	// SubscriptionOpened: a stream took a subscription slot.
	SubscriptionOpened SubscriptionEventKind = "opened"
	// SubscriptionPublished: an event was published to the streams
	// whose filter names it (Matched says how many).
	SubscriptionPublished SubscriptionEventKind = "published"
	// SubscriptionOverflowed: a publish found full buffers and events
	// were dropped (Dropped says how many).
	SubscriptionOverflowed SubscriptionEventKind = "overflowed"
	// SubscriptionClosed: the stream ended and gave its slot back.
	SubscriptionClosed SubscriptionEventKind = "closed"
)

// SubscriptionEvent describes one subscription event.
type SubscriptionEvent struct {
	// Kind says what happened to the stream.
	Kind SubscriptionEventKind
	// Open is the number of subscription slots taken just after the
	// event (on SubscriptionOpened and SubscriptionClosed, from the
	// executor), or of streams attached to the publishing hub (on
	// SubscriptionPublished and SubscriptionOverflowed).
	Open int
	// Matched is set on SubscriptionPublished: the streams whose filter
	// named the event.
	Matched int
	// Topic names what was published: the notification method, such as
	// "notifications/resources/updated" (never the resource URI); set on
	// SubscriptionPublished and SubscriptionOverflowed.
	Topic string
	// Dropped is set on SubscriptionOverflowed.
	Dropped int
	// Duration is set on SubscriptionClosed: how long the stream was
	// open.
	Duration time.Duration
}
