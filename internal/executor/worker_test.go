package executor

import (
	"context"
	"testing"
	"time"
)

// recvTime receives the time ch reports, failing t after 10 s without.
func recvTime(t *testing.T, ch <-chan time.Time, what string) time.Time {
	t.Helper()
	select {
	case at := <-ch:
		return at
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
		return time.Time{}
	}
}

// A worker left without work exits after its idle time.
func TestParkedWorkerExitsWhenIdle(t *testing.T) {
	const idleFor = 20 * time.Millisecond
	e := quietExecutor(Config{MaxConcurrency: 1})
	e.idleFor = idleFor
	exited := make(chan time.Time, 1)
	e.workerExited = func() { exited <- time.Now() }
	defer closeExec(t, e)
	ended := make(chan time.Time, 1)
	if _, err := e.NewScope(context.Background()).Submit(nil, Job{
		Run:  func(context.Context) any { return nil },
		Done: func(Result) { ended <- time.Now() },
	}); err != nil {
		t.Fatal(err)
	}
	end := recvTime(t, ended, "the job's delivery")
	if at := recvTime(t, exited, "the worker's exit"); at.Sub(end) < idleFor {
		t.Fatalf("the worker exited %v after its job, before its idle time %v", at.Sub(end), idleFor)
	}
}

// The idle timer runs on across jobs, so a park may begin with it about to
// fire (armed at an earlier park) or already fired (during the jobs since):
// that first fire only re-arms it, and the park lasts the idle time.
func TestWorkerParkLastsItsIdleTimeWhateverTheTimerDidBefore(t *testing.T) {
	const idleFor = 40 * time.Millisecond
	e := quietExecutor(Config{})
	e.idleFor = idleFor
	defer closeExec(t, e)
	for _, earlier := range []time.Duration{0, idleFor / 4} {
		idle := time.NewTimer(earlier) // what is left of an arming before this park
		start := time.Now()
		if j, ok := e.park(idle); ok || j != nil {
			t.Fatalf("park returned a job, and none was handed over")
		}
		if d := time.Since(start); d < idleFor {
			t.Fatalf("timer due %v into the park: the park lasted %v, less than the idle time %v", earlier, d, idleFor)
		}
		idle.Stop()
	}
}
