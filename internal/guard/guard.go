// Package guard contains an instrumentation sink's panics, so that a
// sink cannot break a request: the runtime guards every sink it is given.
package guard

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"

	"github.com/snodo-go/snodo/instrumentation"
)

// Sink returns a Sink that calls s and contains its panics: a method
// that panics is treated as having returned (DispatchStart then returns
// the context it was given), and the panic is logged through logger with
// its stack the 1st, 2nd, 4th, 8th... time, so a sink that always panics
// cannot flood the log. Sink(nil, _) is nil, and guarding a guarded sink
// returns it unchanged (so a sink shared by the Runtime and its tree
// shares one panic count). A nil logger means slog.Default().
func Sink(s instrumentation.Sink, logger *slog.Logger) instrumentation.Sink {
	if s == nil {
		return nil
	}
	if g, ok := s.(*guarded); ok {
		return g
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &guarded{s: s, logger: logger}
}

type guarded struct {
	s      instrumentation.Sink
	logger *slog.Logger
	panics atomic.Int64
}

// contain is deferred by every method: it recovers a panic of the sink.
func (g *guarded) contain(method string) {
	r := recover()
	if r == nil {
		return
	}
	n := g.panics.Add(1)
	if n&(n-1) == 0 { // 1, 2, 4, 8, ...
		g.logger.Error("snodo: instrumentation sink panicked; event dropped",
			"method", method, "panic", fmt.Sprint(r), "panics", n, "stack", string(debug.Stack()))
	}
}

func (g *guarded) DispatchStart(ctx context.Context, e instrumentation.DispatchStart) (out context.Context) {
	out = ctx
	defer g.contain("DispatchStart")
	if c := g.s.DispatchStart(ctx, e); c != nil {
		out = c
	}
	return out
}

func (g *guarded) DispatchStop(ctx context.Context, e instrumentation.DispatchStop) {
	defer g.contain("DispatchStop")
	g.s.DispatchStop(ctx, e)
}

func (g *guarded) DispatchException(ctx context.Context, e instrumentation.DispatchException) {
	defer g.contain("DispatchException")
	g.s.DispatchException(ctx, e)
}

func (g *guarded) Executor(e instrumentation.ExecutorEvent) {
	defer g.contain("Executor")
	g.s.Executor(e)
}

func (g *guarded) Subscription(e instrumentation.SubscriptionEvent) {
	defer g.contain("Subscription")
	g.s.Subscription(e)
}

func (g *guarded) Refusal(e instrumentation.RefusalEvent) {
	defer g.contain("Refusal")
	g.s.Refusal(e)
}

func (g *guarded) Policy(e instrumentation.PolicyEvent) {
	defer g.contain("Policy")
	g.s.Policy(e)
}
