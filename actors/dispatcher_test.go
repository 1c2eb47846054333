package actors

import (
	"testing"
	"time"
)

// A pool goroutine left without runs exits after its idle time.
func TestMailboxGoroutineExitsWhenIdle(t *testing.T) {
	const idleFor = 20 * time.Millisecond
	p := newMailboxPool()
	p.idleFor = idleFor
	exited := make(chan time.Time, 1)
	p.exited = func() { exited <- time.Now() }
	defer p.close()
	ended := make(chan time.Time, 1)
	p.Schedule(func() { ended <- time.Now() })
	end := recvTime(t, ended, "the run")
	if at := recvTime(t, exited, "the goroutine's exit"); at.Sub(end) < idleFor {
		t.Fatalf("the goroutine exited %v after its run, before its idle time %v", at.Sub(end), idleFor)
	}
}

// As a worker's: a park that begins with the idle timer about to fire or
// already fired still lasts the idle time.
func TestMailboxParkLastsItsIdleTimeWhateverTheTimerDidBefore(t *testing.T) {
	const idleFor = 40 * time.Millisecond
	p := newMailboxPool()
	p.idleFor = idleFor
	defer p.close()
	for _, earlier := range []time.Duration{0, idleFor / 4} {
		idle := time.NewTimer(earlier) // what is left of an arming before this park
		start := time.Now()
		if fn, ok := p.park(idle); ok || fn != nil {
			t.Fatalf("park returned a run, and none was scheduled")
		}
		if d := time.Since(start); d < idleFor {
			t.Fatalf("timer due %v into the park: the park lasted %v, less than the idle time %v", earlier, d, idleFor)
		}
		idle.Stop()
	}
}

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
