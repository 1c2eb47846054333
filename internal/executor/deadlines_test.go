package executor

// Tests of the deadline queues: a shared timer expires each job at its own
// deadline, and the number of queues is bounded.

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// A job submitted after an earlier one of the same timeout ended times out
// at its own deadline, not at the earlier job's: the queue's timer, armed
// for the first job, re-arms for the second.
func TestExecutorDeadlineQueueExpiresEachJobAtItsDeadline(t *testing.T) {
	const timeout = 80 * time.Millisecond
	e := quietExecutor(Config{Timeout: timeout})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	r := newResults()
	if _, err := s.Submit("first", Job{Run: func(context.Context) any { return "done" }, Done: r.done("first")}); err != nil {
		t.Fatal(err)
	}
	if res := r.wait(t, "first"); res.Status != Completed {
		t.Fatalf("first: %+v", res)
	}
	// Spacing, not synchronization: the second deadline falls after the
	// first one, when the queue's timer fires.
	<-time.After(timeout / 2)
	submitted := time.Now()
	if _, err := s.Submit("second", Job{
		Run:  func(ctx context.Context) any { <-ctx.Done(); return "late" },
		Done: r.done("second"),
	}); err != nil {
		t.Fatal(err)
	}
	if res := r.wait(t, "second"); res.Status != TimedOut {
		t.Fatalf("second: %+v, want TimedOut", res)
	}
	if waited := time.Since(submitted); waited < timeout {
		t.Fatalf("second timed out after %v, before its deadline of %v", waited, timeout)
	}
}

// Jobs of more distinct timeouts than there are queues each get a timer of
// their own, and all of them time out.
func TestExecutorBoundsDeadlineQueues(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 2 * maxDeadlineQueues})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	r := newResults()
	n := maxDeadlineQueues + 2
	for i := range n {
		key := strconv.Itoa(i)
		if _, err := s.Submit(key, Job{
			Timeout: time.Duration(20+i) * time.Millisecond,
			Run:     func(ctx context.Context) any { <-ctx.Done(); return nil },
			Done:    r.done(key),
		}); err != nil {
			t.Fatal(err)
		}
	}
	e.mu.Lock()
	queues := len(e.deadlines)
	e.mu.Unlock()
	if queues != maxDeadlineQueues {
		t.Fatalf("%d deadline queues, want %d", queues, maxDeadlineQueues)
	}
	for i := range n {
		if res := r.wait(t, strconv.Itoa(i)); res.Status != TimedOut {
			t.Fatalf("job %d: %+v, want TimedOut", i, res)
		}
	}
}

// A job's deadline counts from Job.Received when the submitter gives it,
// on a deadline queue and on a timer of its own alike.
func TestExecutorDeadlineCountsFromReceived(t *testing.T) {
	for _, queues := range []bool{true, false} {
		e := quietExecutor(Config{})
		if !queues {
			e.deadlines = map[time.Duration]*deadlineQueue{}
			for i := range maxDeadlineQueues { // every queue taken: a timer of its own
				e.deadlines[time.Duration(i+1)*time.Minute] = &deadlineQueue{e: e}
			}
		}
		res := newResults()
		s := e.NewScope(context.Background())
		release := make(chan struct{})
		if _, err := s.Submit(nil, Job{
			Timeout:  time.Hour,
			Received: time.Now().Add(-time.Hour + 20*time.Millisecond),
			Run:      func(ctx context.Context) any { <-release; return nil },
			Done:     res.done("j"),
		}); err != nil {
			t.Fatal(err)
		}
		if r := res.wait(t, "j"); r.Status != TimedOut {
			t.Fatalf("queues %v: %+v, want it timed out an hour after it was received", queues, r)
		}
		close(release)
		closeExec(t, e)
	}
}
