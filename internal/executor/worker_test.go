package executor

import (
	"context"
	"testing"
	"time"
)

// idleExecutor has workers that park for idleFor and report the time each
// exits.
func idleExecutor(idleFor time.Duration) (*Executor, <-chan time.Time) {
	e := quietExecutor(Config{MaxConcurrency: 1})
	e.idleFor = idleFor
	exited := make(chan time.Time, 8)
	e.workerExited = func() { exited <- time.Now() }
	return e, exited
}

// runJob runs one job lasting d on e and returns when its result was
// delivered.
func runJob(t *testing.T, e *Executor, d time.Duration) time.Time {
	t.Helper()
	ended := make(chan time.Time, 1)
	s := e.NewScope(context.Background())
	if _, err := s.Submit(nil, Job{
		Run: func(ctx context.Context) any {
			if d > 0 {
				<-time.After(d) // the job's own length, not a synchronization
			}
			return nil
		},
		Done: func(Result) { ended <- time.Now() },
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-ended:
		return at
	case <-time.After(10 * time.Second):
		t.Fatal("the job was never delivered")
	}
	return time.Time{}
}

func waitExit(t *testing.T, exited <-chan time.Time) time.Time {
	t.Helper()
	select {
	case at := <-exited:
		return at
	case <-time.After(10 * time.Second):
		t.Fatal("the parked worker never exited")
	}
	return time.Time{}
}

func closeExecutor(t *testing.T, e *Executor) {
	t.Helper()
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A worker left without work exits after idleFor.
func TestParkedWorkerExitsWhenIdle(t *testing.T) {
	const idleFor = 20 * time.Millisecond
	e, exited := idleExecutor(idleFor)
	defer closeExecutor(t, e)
	ended := runJob(t, e, 0)
	if at := waitExit(t, exited); at.Sub(ended) < idleFor {
		t.Fatalf("the worker exited %v after its job, before its idle time %v", at.Sub(ended), idleFor)
	}
}

// The idle timer, made at a worker's first park, runs on across the jobs
// after it: a worker that parks again just before it fires must still
// park for idleFor.
func TestWorkerParksForItsIdleTimeAfterAnEarlierPark(t *testing.T) {
	const idleFor = 60 * time.Millisecond
	e, exited := idleExecutor(idleFor)
	parked := make(chan struct{}, 8)
	e.workerParked = func() { parked <- struct{}{} }
	defer closeExecutor(t, e)
	runJob(t, e, 0)
	select {
	case <-parked:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker never parked")
	}
	// Half its idle time into the park (the scenario, not a
	// synchronization: the next job must find the timer armed), another
	// job, handed to the parked worker.
	<-time.After(idleFor / 2)
	ended := runJob(t, e, 0)
	if at := waitExit(t, exited); at.Sub(ended) < idleFor {
		t.Fatalf("the worker exited %v after its job, before its idle time %v", at.Sub(ended), idleFor)
	}
}
