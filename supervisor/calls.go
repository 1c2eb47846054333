package supervisor

// Handlers served by actors: the dispatch handler that sends a call to an
// actor as a message and waits for its reply.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Target names the actor that serves a tool, resource or prompt. Its
// handlers ([Target.Tool], [Target.Resource], [Target.Prompt]) are
// ordinary dispatch handlers, given to dispatch.WithTool (and the other
// registration options, or a hub.Registry) like any other: each call becomes
// a message to the actor, and its reply the call's result.
//
// A call is served by the supervision tree that runs it, so the same
// Runtime may be served by several trees; outside a tree (a Runtime
// called in process) an actor handler answers -32603.
type Target struct {
	pid   *actor.PID
	name  string
	props *actor.Props
}

// PID is a target the application started itself, in the actor system
// of the tree that serves the call ([WithActorSystem]). The tree watches
// it: when it stops, every call waiting for it ends with -32603. A
// failure it recovers from by restarting is not seen (its supervisor is
// the application's): a call it was handling then ends at its deadline.
func PID(pid *actor.PID) Target { return Target{pid: pid} }

// Named is the long-lived actor the tree started with
// [Supervisor.Spawn] under name. It serves every call in its mailbox's
// order; when it fails, its restart strategy decides, and the calls it
// was holding end with -32603.
func Named(name string) Target { return Target{name: name} }

// PerCall starts an actor from props for each call, under the call's
// node in the tree, and stops it when the call ends. It receives the
// call as its first message after Started; a cancellation reaches it
// before it is stopped.
func PerCall(props *actor.Props) Target { return Target{props: props} }

// Tool returns a tool handler that sends each call to the target as a
// [*ToolCall].
func (t Target) Tool() dispatch.ToolHandler {
	return func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		reply, err := t.call(ctx, map[string]string{"method": "tools/call", "name": req.Name, "id": req.Info.ID.String()},
			func(c Call) any { return &ToolCall{Call: c, Request: req} })
		if err != nil {
			return nil, err
		}
		switch r := reply.(type) {
		case *ToolResult:
			return r.Result, nil
		case *CallError:
			return nil, r.errOrInternal()
		}
		return nil, mismatched(ctx, reply, "tools/call")
	}
}

// Resource returns a resource handler, for a resource or a template,
// that sends each read to the target as a [*ResourceRead].
func (t Target) Resource() dispatch.ResourceHandler {
	return func(ctx context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		reply, err := t.call(ctx, map[string]string{"method": "resources/read", "uri": req.URI, "id": req.Info.ID.String()},
			func(c Call) any { return &ResourceRead{Call: c, Request: req} })
		if err != nil {
			return nil, err
		}
		switch r := reply.(type) {
		case *ResourceResult:
			return r.Result, nil
		case *CallError:
			return nil, r.errOrInternal()
		}
		return nil, mismatched(ctx, reply, "resources/read")
	}
}

// Prompt returns a prompt handler that sends each call to the target as
// a [*PromptGet].
func (t Target) Prompt() dispatch.PromptHandler {
	return func(ctx context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		reply, err := t.call(ctx, map[string]string{"method": "prompts/get", "name": req.Name, "id": req.Info.ID.String()},
			func(c Call) any { return &PromptGet{Call: c, Request: req} })
		if err != nil {
			return nil, err
		}
		switch r := reply.(type) {
		case *PromptResult:
			return r.Result, nil
		case *CallError:
			return nil, r.errOrInternal()
		}
		return nil, mismatched(ctx, reply, "prompts/get")
	}
}

// errInternal is what a client sees when a call's actor fails: the cause
// goes to the tree's logger.
var errInternal = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}

func (e *CallError) errOrInternal() error {
	if e.Err == nil {
		return errInternal
	}
	return e.Err
}

func mismatched(ctx context.Context, reply any, method string) error {
	loggerOf(ctx).Error("snodo: a handler actor answered with the wrong reply", "method", method, "reply", fmt.Sprintf("%T", reply))
	return errInternal
}

func loggerOf(ctx context.Context) *slog.Logger {
	if sys := tree.SystemFromContext(ctx); sys != nil {
		return sys.Logger()
	}
	return slog.Default()
}

// call sends the message build makes to the target and waits for the
// reply, relaying the actor's progress reports and log records to the
// client meanwhile. It returns the reply, or the error the handler
// returns: -32603 when the actor failed, ctx's error when the call was
// cancelled (the executor delivers nothing then).
func (t Target) call(ctx context.Context, attrs map[string]string, build func(Call) any) (any, error) {
	sys := tree.SystemFromContext(ctx)
	if sys == nil {
		slog.Default().Error("snodo: an actor handler was called outside a supervision tree", "method", attrs["method"])
		return nil, errInternal
	}
	logger := sys.Logger()
	app, err := sys.Application()
	if err != nil {
		logger.Error("snodo: actor handler", "method", attrs["method"], "error", err)
		return nil, errInternal
	}
	st := newCallState(dispatch.ClientLogger(ctx).Handler())
	spec := tree.CallSpec{
		Target: t.pid, Named: t.name, Props: t.props, Attrs: attrs,
		Message: func(replyTo *actor.PID) any { return build(Call{ReplyTo: replyTo, st: st}) },
		Cancel: func(replyTo *actor.PID) any {
			return &Cancelled{ReplyTo: replyTo, Reason: context.Cause(ctx)}
		},
		Receive: st.receive(logger),
		Gone:    func(reason string) { st.end(&callFailure{reason: reason}) },
	}
	if t.pid == nil && t.name == "" && t.props == nil {
		logger.Error("snodo: an actor handler has no target", "method", attrs["method"])
		return nil, errInternal
	}
	h, err := app.Call(spec)
	if err != nil {
		logger.Error("snodo: actor handler", "method", attrs["method"], "error", err)
		return nil, errInternal
	}
	for {
		select {
		case <-st.wake:
			st.relay(ctx, logger)
		case <-st.done:
			st.relay(ctx, logger)
			h.End()
			if f, ok := st.outcome.(*callFailure); ok {
				logger.Error("snodo: handler actor failed", "method", attrs["method"], "id", attrs["id"], "call", h.ID(), "reason", f.reason)
				return nil, errInternal
			}
			return st.outcome, nil
		case <-ctx.Done():
			// The executor delivers nothing for a cancelled job; the
			// target hears of it unless its reply came first.
			if st.end(nil) {
				h.Cancel()
			} else {
				h.End()
			}
			return nil, ctx.Err()
		}
	}
}

// maxQueuedEvents bounds the progress reports and log records an actor
// may queue for one call before the handler has relayed them.
const maxQueuedEvents = 1024

// Errors of a call's handle.
var (
	// ErrCallEnded: the call has ended (answered, cancelled or failed);
	// nothing more reaches the client for it.
	ErrCallEnded = errors.New("supervisor: the call has ended")
	// ErrCallBacklog: too many progress reports and log records are
	// waiting to be relayed to the client.
	ErrCallBacklog = errors.New("supervisor: too many progress reports and log records waiting for the client")
)

// callState is one call's shared state: its outcome (the first reply or
// failure wins) and the events waiting to be relayed.
type callState struct {
	client slog.Handler // the request's client log handler

	mu      sync.Mutex
	ended   bool
	outcome any
	events  []callEvent
	done    chan struct{} // closed when the call ends
	wake    chan struct{} // an event is waiting
}

type callEvent interface {
	relay(ctx context.Context, logger *slog.Logger)
}

func newCallState(client slog.Handler) *callState {
	return &callState{client: client, done: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// end records the call's outcome, if it has none yet.
func (s *callState) end(outcome any) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ended, s.outcome = true, outcome
	close(s.done)
	return true
}

func (s *callState) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// receive takes the messages that reach the call's actor: the replies.
func (s *callState) receive(logger *slog.Logger) func(any) {
	return func(msg any) {
		switch msg.(type) {
		case *ToolResult, *ResourceResult, *PromptResult, *CallError, *callFailure:
			s.end(msg)
		default:
			logger.Warn("snodo: a call's actor received a message that is not a reply; dropped", "message", fmt.Sprintf("%T", msg))
		}
	}
}

func (s *callState) queue(e callEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return ErrCallEnded
	case len(s.events) >= maxQueuedEvents:
		return ErrCallBacklog
	}
	s.events = append(s.events, e)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// relay sends the waiting events to the client, in order, on the
// handler's goroutine.
func (s *callState) relay(ctx context.Context, logger *slog.Logger) {
	for {
		s.mu.Lock()
		events := s.events
		s.events = nil
		s.mu.Unlock()
		if len(events) == 0 {
			return
		}
		for _, e := range events {
			e.relay(ctx, logger)
		}
	}
}

type progressEvent mcp.Progress

func (p progressEvent) relay(ctx context.Context, logger *slog.Logger) {
	err := dispatch.ReportProgress(ctx, mcp.Progress(p))
	if err != nil && ctx.Err() == nil {
		logger.Warn("snodo: a handler actor's progress report was not sent", "error", err)
	}
}

type logEvent struct {
	h slog.Handler
	r slog.Record
}

func (e logEvent) relay(ctx context.Context, _ *slog.Logger) { _ = e.h.Handle(ctx, e.r) }

// callLogHandler queues records for the client log handler of the
// request.
type callLogHandler struct {
	st *callState
	h  slog.Handler
}

func (h *callLogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *callLogHandler) Handle(_ context.Context, r slog.Record) error {
	return h.st.queue(logEvent{h: h.h, r: r.Clone()})
}

func (h *callLogHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return &callLogHandler{st: h.st, h: h.h.WithAttrs(a)}
}

func (h *callLogHandler) WithGroup(n string) slog.Handler {
	return &callLogHandler{st: h.st, h: h.h.WithGroup(n)}
}
