package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/slot"
)

// A job that gives its slot back lets a queued job run; taking it again
// waits for a slot and goes ahead of jobs queued later.
func TestExecutorReleasedSlotRunsQueuedWorkAndReacquireGoesFirst(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4, Timeout: -1})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	res := newResults()
	released := make(chan struct{})
	resume := make(chan struct{})
	order := make(chan string, 4)
	var ticket *Ticket
	ticketReady := make(chan struct{})
	tk, err := s.Submit("a", Job{Run: func(ctx context.Context) any {
		sl := slot.From(ctx)
		if sl == nil {
			t.Error("a job's context carries no slot")
			return nil
		}
		sl.Release()
		close(released)
		<-resume
		if err := sl.Reacquire(ctx); err != nil {
			t.Errorf("Reacquire: %v", err)
		}
		order <- "a"
		return nil
	}, Done: res.done("a")})
	if err != nil {
		t.Fatal(err)
	}
	ticket = tk
	close(ticketReady)
	<-released
	<-ticketReady
	if st := ticket.State(); st != "waiting" {
		t.Errorf("state of a job that released its slot = %q, want waiting", st)
	}
	if st := e.Stats(); st.Running != 0 || st.Waiting != 1 {
		t.Errorf("stats while suspended: %+v, want 0 running, 1 waiting", st)
	}
	// b takes the free slot and holds it; c queues behind it.
	b := newBlocker()
	if _, err := s.Submit("b", Job{Run: b.run("b"), Done: res.done("b")}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, b.started); got != "b" {
		t.Fatal("b did not start")
	}
	if _, err := s.Submit("c", Job{Run: func(context.Context) any { order <- "c"; return nil }, Done: res.done("c")}); err != nil {
		t.Fatal(err)
	}
	close(resume) // a asks for a slot again: b holds it, c is queued
	waitFor(t, func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.resumers.Len() == 1 })
	close(b.release)
	if first := <-order; first != "a" {
		t.Fatalf("first after the slot freed: %s, want the resumed job a", first)
	}
	res.wait(t, "a")
	res.wait(t, "b")
	res.wait(t, "c")
	// A delivery precedes the release of its slot.
	waitFor(t, func() bool { st := e.Stats(); return st.Running == 0 && st.Waiting == 0 && st.Queued == 0 })
}

// Cancelling a job waiting to take a slot again ends the wait at once and
// leaves no slot taken.
func TestExecutorReacquireEndsWithTheJob(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4, Timeout: -1})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	res := newResults()
	released := make(chan struct{})
	got := make(chan error, 1)
	ask := make(chan struct{})
	ta, err := s.Submit("a", Job{Run: func(ctx context.Context) any {
		sl := slot.From(ctx)
		sl.Release()
		close(released)
		<-ask
		got <- sl.Reacquire(ctx)
		return nil
	}, Done: res.done("a")})
	if err != nil {
		t.Fatal(err)
	}
	<-released
	b := newBlocker()
	if _, err := s.Submit("b", Job{Run: b.run("b"), Done: res.done("b")}); err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	close(ask)
	waitFor(t, func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.resumers.Len() == 1 })
	ta.Cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Reacquire after cancel = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Reacquire did not return when the job was cancelled")
	}
	waitFor(t, func() bool { return e.Stats().Waiting == 0 })
	e.mu.Lock()
	n := e.resumers.Len()
	e.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d resumers left after the cancelled one returned", n)
	}
	close(b.release)
	res.wait(t, "b")
	waitFor(t, func() bool { st := e.Stats(); return st.Running == 0 && st.Waiting == 0 })
}

// waitFor waits, with a deadline, until cond holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}
