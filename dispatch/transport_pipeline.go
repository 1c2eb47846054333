// Transport-author API: running one message in the calling goroutine
// (Dispatch, or Admit then Execute) and its Outcome.

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Outcome is the protocol-neutral result of running one message: a response
// frame, or nothing when the protocol demands silence (notifications,
// JSON-RPC responses).
type Outcome struct {
	// Frame is the encoded response (one JSON object, ASCII only, no
	// trailing newline), or nil when nothing is to be sent.
	Frame []byte
	// ErrorCode is the JSON-RPC error code Frame carries, or 0 when Frame
	// is a result (or absent). HTTP transports map it to a status.
	ErrorCode int64
	// NegotiatedVersion is set when the message was a successful
	// initialize: the transport records it for the connection, or issues
	// a session for it.
	NegotiatedVersion string
	// SessionEra is set when an initialize-era revision (2025-11-25,
	// 2025-06-18) refused the request in [Runtime.Admit]. An HTTP
	// transport chooses the status of a refusal by it: for an
	// initialize-era client, 404 means its session is gone.
	SessionEra bool
	// RetryAfter is set when Frame is a component policy's refusal that
	// says when to try again ([CodeRateLimited], [CodeBusy]); an HTTP
	// transport sends it as Retry-After.
	RetryAfter time.Duration
}

// errorOutcome returns the Outcome that answers id with e.
func errorOutcome(id jsonrpc.ID, e *jsonrpc.Error) Outcome {
	return Outcome{Frame: rpcwire.EncodeError(id, e), ErrorCode: e.Code}
}

// Dispatch runs one message to completion in the calling goroutine:
// [Runtime.Admit], then [Runtime.Execute] when there is something to run.
func (rt *Runtime) Dispatch(ctx context.Context, req *Request) Outcome {
	call, out := rt.Admit(req)
	if call == nil {
		return out
	}
	return rt.Execute(ctx, call)
}

// Admit selects the dialect for req and admits it without running any
// application code. It returns a Call to pass to Execute, or (nil, the
// outcome to send) when there is nothing to run: an admission error, a
// notification, or a JSON-RPC response. A notification is offered to the
// dialect that would serve a request on the same connection, when that
// dialect is a notificationReceiver (notifications/initialized updates
// the request's Session that way). Admit keeps no reference to req: a
// transport may reuse it for its next message once Admit has returned.
func (rt *Runtime) Admit(req *Request) (*Call, Outcome) {
	msg := req.Message
	if msg == nil {
		return nil, Outcome{}
	}
	if msg.Kind == jsonrpc.KindNotification {
		if d, jerr := rt.registry.selectDialect(req); jerr == nil {
			if r, ok := d.(notificationReceiver); ok {
				r.ReceiveNotification(rt, req)
			}
		}
		return nil, Outcome{}
	}
	if msg.Kind != jsonrpc.KindRequest {
		return nil, Outcome{}
	}
	d, jerr := rt.registry.selectDialect(req)
	if jerr != nil {
		return nil, errorOutcome(msg.ID, jerr)
	}
	call, jerr := d.Admit(rt, req)
	if jerr != nil {
		out := errorOutcome(msg.ID, jerr)
		out.SessionEra = d.Era() == eraSession
		return nil, out
	}
	call.Info.header = req.Header
	return call, Outcome{}
}

// Execute runs an admitted call: the operation, the application callback,
// and the dialect's wire shaping. A panic anywhere in it becomes -32603 for
// this call only and is logged with its stack. Execute always returns a
// frame; whether to send it (the request may have been cancelled) is the
// transport's decision.
func (rt *Runtime) Execute(ctx context.Context, c *Call) Outcome {
	if rt.sink != nil {
		return rt.executeInstrumented(ctx, c)
	}
	out, _ := rt.execute(ctx, c)
	return out
}

// execute is Execute without instrumentation. Besides the outcome it
// returns the operation's result (nil on error) and its error, for the
// instrumentation to classify.
func (rt *Runtime) execute(ctx context.Context, c *Call) (Outcome, executed) {
	ctx = withCall(ctx, rt, c)
	res, err := rt.runOp(ctx, c)
	if err != nil {
		out := errorOutcome(c.Info.ID, rt.toRPCError(c, err))
		out.RetryAfter = retryAfterOf(err)
		return out, executed{err: err}
	}
	wire, err := c.dialect.ShapeResult(rt, c, res)
	if err != nil {
		return errorOutcome(c.Info.ID, rt.internal(c, "shaping result", err)), executed{err: err}
	}
	frame, err := encodeResultFrame(c.Info.ID, wire)
	if err != nil {
		return errorOutcome(c.Info.ID, rt.internal(c, "encoding result", err)), executed{err: err}
	}
	out := Outcome{Frame: frame}
	if hr, ok := res.(handshakeResult); ok {
		h := hr.Handshake()
		out.NegotiatedVersion = h.ProtocolVersion
		if c.Session != nil {
			c.Session.begin(h)
		}
	}
	return out, executed{result: res}
}

// executed is what an execution produced besides its frame.
type executed struct {
	result any
	err    error
}

// notificationReceiver is implemented by a dialect that acts on client
// notifications (notifications/initialized). ReceiveNotification runs on
// the transport's goroutine during [Runtime.Admit]: it must be quick and
// must not run application code.
type notificationReceiver interface {
	ReceiveNotification(rt *Runtime, req *Request)
}

// runOp calls the operation with panic isolation.
func (rt *Runtime) runOp(ctx context.Context, c *Call) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = rt.recovered(c, r, debug.Stack())
		}
	}()
	return c.op(ctx, rt, c)
}

// errInternal is what a client sees for a panic or an unencodable result;
// the details go to the logger only.
var errInternal = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}

// panicError wraps a recovered panic from application code. It reaches the
// logger, never the client.
type panicError struct {
	// Value is what the application code panicked with.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

// Error describes the panic by its value; the stack is left out.
func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

func (rt *Runtime) recovered(c *Call, r any, stack []byte) error {
	rt.logger.Error("snodo: application callback panicked",
		"method", c.Info.Method, "id", c.Info.ID.String(), "panic", fmt.Sprint(r), "stack", string(stack))
	return &panicError{Value: r, Stack: stack}
}

func (rt *Runtime) internal(c *Call, what string, err error) *jsonrpc.Error {
	rt.logger.Error("snodo: "+what+" failed", "method", c.Info.Method, "id", c.Info.ID.String(), "error", err)
	return errInternal
}

// toRPCError maps an operation error to the JSON-RPC error the client sees.
func (rt *Runtime) toRPCError(c *Call, err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	var pe *panicError
	switch {
	case errors.As(err, &je):
		return c.dialect.ShapeError(rt, c, je)
	case errors.As(err, &pe):
		return errInternal
	default:
		return rt.internal(c, "operation", err)
	}
}
