// What a handler reaches through its context: RequestInfo, progress reports
// and the per-call state.

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

type callKey struct{}

// callState is the per-call state reachable from a handler's context.
type callState struct {
	rt   *Runtime
	call *Call
	// ctx is the handler's context, which bounds notification writes made
	// from calls that carry no context of their own (slog's Info).
	ctx      context.Context
	valueCtx callContext // what ctx points to

	mu            sync.Mutex
	progressCount int
	lastProgress  float64
	logCount      int
}

func withCall(ctx context.Context, rt *Runtime, c *Call) context.Context {
	s := &callState{rt: rt, call: c}
	s.valueCtx = callContext{Context: ctx, s: s}
	s.ctx = &s.valueCtx
	return s.ctx
}

// callContext is a handler's context: its parent's, answering callKey{}
// with the call's state. It lives in the state, so a call's context costs
// no allocation of its own.
type callContext struct {
	context.Context
	s *callState
}

// Value returns the call's state for callKey{} and defers every other
// key to the parent.
func (c *callContext) Value(k any) any {
	if k == (callKey{}) {
		return c.s
	}
	return c.Context.Value(k)
}

func stateFrom(ctx context.Context) *callState {
	s, _ := ctx.Value(callKey{}).(*callState)
	return s
}

// RequestInfoFromContext returns the description of the request a handler
// is serving, or nil outside a handler.
func RequestInfoFromContext(ctx context.Context) *RequestInfo {
	if s := stateFrom(ctx); s != nil {
		return &s.call.Info
	}
	return nil
}

// Errors returned by ReportProgress.
var (
	ErrProgressNotIncreasing = errors.New("dispatch: progress must increase")
	ErrProgressLimit         = errors.New("dispatch: progress update limit reached")
	ErrProgressMessage       = errors.New("dispatch: progress message too long")
)

// ReportProgress sends a notifications/progress for the request being served
// by ctx and waits until the transport has written it, so reports always
// precede the response. It does nothing (and returns nil) when the request
// carried no progressToken or ctx is not a handler context. It returns
// ctx.Err() once the request is cancelled: nothing more is sent for it.
func ReportProgress(ctx context.Context, p mcp.Progress) error {
	s := stateFrom(ctx)
	if s == nil || !s.call.Info.ProgressToken.IsValid() || s.call.Notifier == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	lim := s.rt.limits
	if len(p.Message) > lim.MaxProgressMessageBytes {
		return fmt.Errorf("%w (%d bytes, limit %d)", ErrProgressMessage, len(p.Message), lim.MaxProgressMessageBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progressCount >= lim.MaxProgressUpdates {
		return ErrProgressLimit
	}
	if s.progressCount > 0 && p.Progress <= s.lastProgress {
		return ErrProgressNotIncreasing
	}
	frame, err := rpcwire.EncodeNotification("notifications/progress", progressParams{
		Token:    s.call.Info.ProgressToken,
		Progress: p.Progress,
		Total:    p.Total,
		Message:  p.Message,
	})
	if err != nil {
		return err
	}
	s.progressCount++
	s.lastProgress = p.Progress
	return s.call.Notifier.Notify(ctx, frame)
}

type progressParams struct {
	Token    jsonrpc.ID `json:"progressToken"`
	Progress float64    `json:"progress"`
	Total    float64    `json:"total,omitempty"`
	Message  string     `json:"message,omitempty"`
}

// RequestInfo describes an admitted request to the code that serves it.
type RequestInfo struct {
	// ID is the request id.
	ID jsonrpc.ID
	// Method is the JSON-RPC method.
	Method string
	// ProtocolVersion is the revision serving the request.
	ProtocolVersion string
	// ClientCapabilities are those declared for this request. The maps
	// and pointers inside may be shared with other requests: read only.
	ClientCapabilities mcp.ClientCapabilities
	// ClientInfo is the client's self-description, when it sent one. It is
	// unverified: never base a security decision on it.
	ClientInfo *mcp.Implementation
	// LogLevel is the level the request asked for log messages at, or "".
	LogLevel string
	// ProgressToken is the request's progress token; the zero ID when the
	// request carried none.
	ProgressToken jsonrpc.ID
	// Meta is the request's raw _meta object, for vendor keys; nil when
	// absent.
	Meta []byte
	// Principal is the verified identity attached by the application.
	Principal any
	// Transport is the transport the request arrived on.
	Transport TransportKind

	// header is the HTTP request's headers (nil on other transports),
	// read only by TraceContext.
	header map[string][]string
}
