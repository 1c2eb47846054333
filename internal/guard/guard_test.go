package guard

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
)

// panicky panics in every method.
type panicky struct{}

func (panicky) DispatchStart(context.Context, instrumentation.DispatchStart) context.Context {
	panic("start")
}
func (panicky) DispatchStop(context.Context, instrumentation.DispatchStop) { panic("stop") }
func (panicky) DispatchException(context.Context, instrumentation.DispatchException) {
	panic("exception")
}
func (panicky) Executor(instrumentation.ExecutorEvent)         { panic("executor") }
func (panicky) Subscription(instrumentation.SubscriptionEvent) { panic("subscription") }
func (panicky) Refusal(instrumentation.RefusalEvent)           { panic("refusal") }
func (panicky) Policy(instrumentation.PolicyEvent)             { panic("policy") }

type ctxKey struct{}

// marker returns a context carrying a value, so tests can tell contexts apart.
type marker struct{ instrumentation.Nop }

func (marker) DispatchStart(ctx context.Context, _ instrumentation.DispatchStart) context.Context {
	return context.WithValue(ctx, ctxKey{}, "marked")
}

func TestGuardContainsEveryPanic(t *testing.T) {
	var logs bytes.Buffer
	g := Sink(panicky{}, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := context.WithValue(context.Background(), ctxKey{}, "original")
	for range 5 {
		if got := g.DispatchStart(ctx, instrumentation.DispatchStart{}); got != ctx {
			t.Fatalf("DispatchStart after a panic returned %v, want the context it was given", got)
		}
		g.DispatchStop(ctx, instrumentation.DispatchStop{})
		g.DispatchException(ctx, instrumentation.DispatchException{})
		g.Executor(instrumentation.ExecutorEvent{})
		g.Subscription(instrumentation.SubscriptionEvent{})
		g.Refusal(instrumentation.RefusalEvent{})
		g.Policy(instrumentation.PolicyEvent{})
	}
	// 35 panics: logged at the 1st, 2nd, 4th, 8th, 16th and 32nd.
	if n := strings.Count(logs.String(), "instrumentation sink panicked"); n != 6 {
		t.Fatalf("logged %d panics, want 6 (throttled):\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "panics=32") {
		t.Fatalf("log does not carry the panic count:\n%s", logs.String())
	}
}

func TestGuardPassesThrough(t *testing.T) {
	if Sink(nil, nil) != nil {
		t.Fatal("Sink(nil) is not nil")
	}
	g := Sink(marker{}, nil)
	if Sink(g, nil) != g {
		t.Fatal("guarding a guarded sink wrapped it again")
	}
	got := g.DispatchStart(context.Background(), instrumentation.DispatchStart{})
	if got.Value(ctxKey{}) != "marked" {
		t.Fatal("the sink's context was not returned")
	}
}

func TestNopReturnsItsContext(t *testing.T) {
	var s instrumentation.Sink = instrumentation.Nop{}
	ctx := context.WithValue(context.Background(), ctxKey{}, 1)
	if s.DispatchStart(ctx, instrumentation.DispatchStart{}) != ctx {
		t.Fatal("Nop changed the context")
	}
}
