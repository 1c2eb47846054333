// The instrumentation sink option and the dispatch events the Runtime emits.

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/tracectx"
	"github.com/snodo-go/snodo/mcp"
)

// WithInstrumentation sets the sink that hears about every call the
// Runtime executes: DispatchStart before it runs, then DispatchStop with
// its duration and outcome, or DispatchException when application code
// panicked. The sink never sees arguments, results or principals, and a
// panic in it is contained (see internal/guard). Give the same
// sink to the supervisor (supervisor.WithInstrumentation) to hear about
// the executor and subscriptions too.
//
// Without this option the Runtime builds no events at all.
func WithInstrumentation(s instrumentation.Sink) Option {
	return optionFunc(func(b *builder) error {
		if s == nil {
			return errors.New("dispatch: nil instrumentation sink")
		}
		b.rt.sink = s
		return nil
	})
}

// Instrumentation returns the Runtime's sink (guarded against panics), or
// nil when none was set. Transports that create their own supervision
// tree give it the same sink.
func (rt *Runtime) Instrumentation() instrumentation.Sink { return rt.sink }

// TraceContext returns the W3C trace context of the request, validated:
// the traceparent and tracestate in its _meta when _meta carries a valid
// traceparent, otherwise those of its HTTP headers (W3C Trace Context's
// traceparent and tracestate; FromHeader is then set); the zero value
// when neither carries a valid one. It is parsed on each call, so a
// server that never asks pays nothing.
func (ri *RequestInfo) TraceContext() instrumentation.TraceContext {
	if t := ri.metaTraceContext(); t.IsValid() { // mutation: trace-context-meta-wins
		return t
	}
	if ri.header == nil {
		return instrumentation.TraceContext{}
	}
	return tracectx.FromHeader(ri.header)
}

// metaTraceContext is the trace context in _meta.
func (ri *RequestInfo) metaTraceContext() instrumentation.TraceContext {
	if len(ri.Meta) == 0 {
		return instrumentation.TraceContext{}
	}
	raw, ok := jsonwire.Member(ri.Meta, "traceparent")
	if !ok {
		return instrumentation.TraceContext{}
	}
	parent, ok := jsonwire.Unquote(raw)
	if !ok {
		return instrumentation.TraceContext{}
	}
	var state string
	if raw, ok := jsonwire.Member(ri.Meta, "tracestate"); ok {
		state, _ = jsonwire.Unquote(raw)
	}
	return tracectx.New(parent, state)
}

// executeInstrumented is Execute with events: the sink's context reaches
// the handler, so spans the handler starts are children of the call's.
func (rt *Runtime) executeInstrumented(ctx context.Context, c *Call) Outcome {
	call := instrumentation.Call{
		Method:          c.Info.Method,
		Component:       rt.componentOf(c),
		RequestID:       c.Info.ID.String(),
		ProtocolVersion: c.Info.ProtocolVersion,
		Transport:       c.Info.Transport.String(),
		Trace:           c.Info.TraceContext(),
	}
	start := time.Now()
	ctx = rt.sink.DispatchStart(ctx, instrumentation.DispatchStart{Call: call, Time: start})
	out, ex := rt.execute(ctx, c)
	d := time.Since(start)
	var pe *panicError
	if errors.As(ex.err, &pe) {
		rt.sink.DispatchException(ctx, instrumentation.DispatchException{
			Call: call, Duration: d, Kind: "panic", PanicType: fmt.Sprintf("%T", pe.Value),
		})
		return out
	}
	stop := instrumentation.DispatchStop{Call: call, Duration: d, Outcome: instrumentation.OutcomeResult}
	switch r := ex.result.(type) {
	case *mcp.CallToolResult:
		if r.IsError {
			stop.Outcome = instrumentation.OutcomeToolError
		}
	case *inputRequiredResult:
		stop.Outcome = instrumentation.OutcomeInputRequired
	}
	if out.ErrorCode != 0 {
		stop.Outcome, stop.ErrorCode = instrumentation.OutcomeError, out.ErrorCode
	}
	if ctx.Err() != nil {
		stop.Outcome, stop.ErrorCode = instrumentation.OutcomeCancelled, 0
	}
	rt.sink.DispatchStop(ctx, stop)
	return out
}

// componentOf names the registered component a call addresses, or ""
// when it addresses none or names one that is not registered (a name the
// client made up must not reach the sink: it is unbounded and may be
// data).
func (rt *Runtime) componentOf(c *Call) string {
	snap := rt.catalog.snapshot()
	member := func(key string) string {
		raw, ok := jsonwire.Member(c.Params, key)
		if !ok {
			return ""
		}
		s, _ := jsonwire.Unquote(raw)
		return s
	}
	switch c.Info.Method {
	case "tools/call":
		if _, ok := snap.tools[member("name")]; ok {
			return member("name")
		}
	case "prompts/get":
		if _, ok := snap.prompts[member("name")]; ok {
			return member("name")
		}
	case "resources/read":
		uri := member("uri")
		if _, ok := snap.resources[uri]; ok {
			return uri
		}
		// A template, never the concrete URI: its variables are data.
		if t, _ := snap.matchTemplate(uri); t != nil {
			return t.template.URITemplate
		}
	case "completion/complete":
		ref, ok := jsonwire.Member(c.Params, "ref")
		if !ok {
			return ""
		}
		var r struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		}
		if jsonwire.Unmarshal(ref, &r) != nil {
			return ""
		}
		switch r.Type {
		case mcp.RefPrompt:
			if _, ok := snap.prompts[r.Name]; ok {
				return r.Name
			}
		case mcp.RefResource:
			for _, t := range snap.templates {
				if t.template.URITemplate == r.URI {
					return r.URI
				}
			}
		}
	}
	return ""
}
