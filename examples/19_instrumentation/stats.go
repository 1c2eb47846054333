package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
)

// Stats is an instrumentation.Sink that keeps a few numbers in memory:
// per method and component, the count, total time and outcomes of calls;
// for the executor, the longest queue wait and the rejections by reason.
// A real sink would feed a metrics library; this one shows the events.
type Stats struct {
	instrumentation.Nop // stay compatible when events are added

	mu         sync.Mutex
	calls      map[string]*callStats
	maxWait    time.Duration
	maxDepth   int
	rejections map[string]int
	traced     int // calls that arrived with a W3C trace context
}

type callStats struct {
	count    int
	total    time.Duration
	outcomes map[string]int
}

// NewStats returns an empty Stats.
func NewStats() *Stats {
	return &Stats{calls: map[string]*callStats{}, rejections: map[string]int{}}
}

// DispatchStart counts calls carrying a trace context.
func (s *Stats) DispatchStart(ctx context.Context, e instrumentation.DispatchStart) context.Context {
	if e.Trace.IsValid() {
		s.mu.Lock()
		s.traced++
		s.mu.Unlock()
	}
	return ctx
}

// DispatchStop records one call's duration and outcome.
func (s *Stats) DispatchStop(_ context.Context, e instrumentation.DispatchStop) {
	outcome := string(e.Outcome)
	if e.Outcome == instrumentation.OutcomeError {
		outcome = fmt.Sprintf("error %d", e.ErrorCode)
	}
	s.record(e.Call, e.Duration, outcome)
}

// DispatchException records a call whose handler panicked.
func (s *Stats) DispatchException(_ context.Context, e instrumentation.DispatchException) {
	s.record(e.Call, e.Duration, "panic")
}

func (s *Stats) record(c instrumentation.Call, d time.Duration, outcome string) {
	key := c.Method
	if c.Component != "" {
		key += " " + c.Component
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.calls[key]
	if cs == nil {
		cs = &callStats{outcomes: map[string]int{}}
		s.calls[key] = cs
	}
	cs.count++
	cs.total += d
	cs.outcomes[outcome]++
}

// Executor records queue waits, depth and rejections.
func (s *Stats) Executor(e instrumentation.ExecutorEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxDepth = max(s.maxDepth, e.QueueDepth)
	switch e.Kind {
	case instrumentation.ExecutorStarted:
		s.maxWait = max(s.maxWait, e.Wait)
	case instrumentation.ExecutorRejected:
		s.rejections[e.Reason]++
	}
}

// Print prints the numbers.
func (s *Stats) Print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.calls))
	for k := range s.calls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cs := s.calls[k]
		fmt.Fprintf(w, "%-22s calls=%d mean=%v outcomes=%v\n", k, cs.count, (cs.total / time.Duration(cs.count)).Round(time.Microsecond), cs.outcomes)
	}
	fmt.Fprintf(w, "executor: longest queue wait %v, deepest queue %d, rejections %v; traced calls %d\n",
		s.maxWait.Round(time.Microsecond), s.maxDepth, s.rejections, s.traced)
}
