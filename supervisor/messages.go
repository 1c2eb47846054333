package supervisor

// The messages application actors receive and send: calls, their
// cancellation and replies, and the application node's events.

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// late gives a message type protoactor's IgnoreDeadLetterLogging: every
// message here may legitimately reach an actor that has stopped (a reply
// to a call already cancelled, a call to a target that stopped), and is
// listed with its reason in lateMessages.
type late struct{}

// IgnoreDeadLetterLogging keeps protoactor from logging the message as a
// dead letter.
func (late) IgnoreDeadLetterLogging() {}

// Call is what every call message carries: where the reply goes and the
// call's way to the client. Its methods are safe for concurrent use from
// any goroutine, and none of them blocks.
type Call struct {
	// ReplyTo is the call's actor in the tree, the sender of the call
	// message: a reply sent there (actor.Context.Respond does, in the
	// actor that received the call) ends the call. Only the first reply
	// counts; one after the call ended (answered, cancelled or failed) is
	// dropped. It also identifies the call in a later [Cancelled].
	ReplyTo *actor.PID

	st *callState
}

func (c *Call) callState() *callState { return c.st }

// ToolCall is one tools/call for a tool served by an actor ([Target.Tool]).
// Reply with a [*ToolResult] or a [*CallError].
type ToolCall struct {
	Call
	// Request is the call: the tool's name, its arguments (already
	// validated against the tool's input schema), the request info, and
	// the client's answers on a retry after input was asked for.
	Request *dispatch.CallToolRequest
	late
}

// ResourceRead is one resources/read for a resource or template served
// by an actor ([Target.Resource]). Reply with a [*ResourceResult] or a
// [*CallError].
type ResourceRead struct {
	Call
	// Request is the read: the URI, a template's variables, the request
	// info, and the client's answers on a retry.
	Request *dispatch.ReadResourceRequest
	late
}

// PromptGet is one prompts/get for a prompt served by an actor
// ([Target.Prompt]). Reply with a [*PromptResult] or a [*CallError].
type PromptGet struct {
	Call
	// Request is the call: the prompt's name, its arguments (already
	// checked), the request info, and the client's answers on a retry.
	Request *dispatch.GetPromptRequest
	late
}

// Cancelled tells the actor a call was sent to that the call ended
// without its reply: the client cancelled it or went away, or its
// deadline passed. A reply sent after it is dropped. A per-call actor
// receives it before it is stopped; any other actor receives it after
// the call's message.
type Cancelled struct {
	// ReplyTo identifies the call: it is the ReplyTo of its message.
	ReplyTo *actor.PID
	// Reason is why: context.Canceled, context.DeadlineExceeded, or the
	// cause the request's context was given.
	Reason error
	late
}

// ToolResult answers a [ToolCall]. A nil Result is an empty result.
type ToolResult struct {
	// Result is the tool's result.
	Result *mcp.CallToolResult
	late
}

// ResourceResult answers a [ResourceRead].
type ResourceResult struct {
	// Result is what was read.
	Result *mcp.ReadResourceResult
	late
}

// PromptResult answers a [PromptGet].
type PromptResult struct {
	// Result is the rendered prompt.
	Result *mcp.GetPromptResult
	late
}

// CallError answers any call with an error, which is treated as the
// handler's returned error would be: a *jsonrpc.Error is sent as that
// error; a *dispatch.InputRequired asks the client for input (the
// client's answers arrive with a new call, in its Request.Input); for a
// tool any other error is a result with isError set, for a resource or
// prompt -32603.
type CallError struct {
	// Err is the error. A nil Err is a server error (-32603).
	Err error
	late
}

// callFailure ends a call with -32603: its actor panicked, restarted or
// stopped while holding it. It is sent to the call's actor, behind any
// reply the failing actor sent before.
type callFailure struct {
	reason string
	late
}

// Publish asks the application node ([Supervisor.ApplicationPID]) to
// publish Event on the hub the Runtime serves subscriptions from
// (dispatch.WithSubscriptions): a list change or a resource update, seen
// by the subscription streams that asked for it. The node answers the
// sender, if there is one, with a [*Published].
type Publish struct {
	// Event is what changed.
	Event dispatch.Event
	late
}

// Published is the outcome of a [Publish].
type Published struct {
	// Result counts the streams the event reached.
	Result dispatch.PublishResult
	// Err is why the event was not published: ErrNoHub, or the hub's
	// error for an invalid event.
	Err error
	late
}

// Notify asks the application node ([Supervisor.ApplicationPID]) to send
// an application notification to a stdio connection of the tree, as
// that connection's Notify does, with the same methods allowed (its
// WithNotificationMethods) and the same failures. The node answers the
// sender, if there is one, with a [*Notified] once the notification has
// been written or has failed; it never blocks waiting.
type Notify struct {
	// Conn is the connection's name (stdio.WithName).
	Conn string
	// Method is the notification's method.
	Method string
	// Params must encode to a JSON object; nil sends {}.
	Params any
	late
}

// Notified is the outcome of a [Notify].
type Notified struct {
	// Err is nil once the notification has been written; otherwise a
	// *stdio.NotifyError as the connection's Notify returns it,
	// ErrNoConnection, or ErrNotifyBacklog.
	Err error
	late
}

// A call's handle for the actor: the methods below reach the client
// through the handler that waits for the reply.

// Progress queues a progress report for the client (sent only when the
// request carried a progress token), to be written before the reply. It
// fails with ErrCallEnded once the call has ended and with
// ErrCallBacklog when 1,024 reports and log records are already waiting;
// a report the Runtime refuses (progress not increasing, too many, a
// message too long) is logged, as the handler would have been told.
func (c *Call) Progress(p mcp.Progress) error { return c.st.queue(progressEvent(p)) }

// Logger returns a logger whose records go to the client as
// notifications/message before the reply, under the same rules as
// dispatch.Logger in a function handler (the level the request asked
// for, the Runtime's limit). Records are queued, as Progress reports are.
func (c *Call) Logger() *slog.Logger { return slog.New(&callLogHandler{st: c.st, h: c.st.client}) }
