package actors

import (
	"testing"
	"time"
)

// idlePool is a mailbox pool whose goroutines park for idleFor and report
// the time each exits.
func idlePool(idleFor time.Duration) (*mailboxPool, <-chan time.Time) {
	p := newMailboxPool()
	p.idleFor = idleFor
	exited := make(chan time.Time, 8)
	p.exited = func() { exited <- time.Now() }
	return p, exited
}

// runOnPool schedules a run lasting d and returns when it ended.
func runOnPool(t *testing.T, p *mailboxPool, d time.Duration) time.Time {
	t.Helper()
	ended := make(chan time.Time, 1)
	p.Schedule(func() {
		if d > 0 {
			<-time.After(d) // the run's own length, not a synchronization
		}
		ended <- time.Now()
	})
	select {
	case at := <-ended:
		return at
	case <-time.After(10 * time.Second):
		t.Fatal("the run never happened")
	}
	return time.Time{}
}

func waitPoolExit(t *testing.T, exited <-chan time.Time) time.Time {
	t.Helper()
	select {
	case at := <-exited:
		return at
	case <-time.After(10 * time.Second):
		t.Fatal("the parked goroutine never exited")
	}
	return time.Time{}
}

// A pool goroutine left without runs exits after idleFor.
func TestMailboxGoroutineExitsWhenIdle(t *testing.T) {
	const idleFor = 20 * time.Millisecond
	p, exited := idlePool(idleFor)
	defer p.close()
	ended := runOnPool(t, p, 0)
	if at := waitPoolExit(t, exited); at.Sub(ended) < idleFor {
		t.Fatalf("the goroutine exited %v after its run, before its idle time %v", at.Sub(ended), idleFor)
	}
}

// The idle timer, made at a goroutine's first park, runs on across the
// runs after it: a goroutine that parks again just before it fires must
// still park for idleFor.
func TestMailboxGoroutineParksForItsIdleTimeAfterAnEarlierPark(t *testing.T) {
	const idleFor = 60 * time.Millisecond
	p, exited := idlePool(idleFor)
	parked := make(chan struct{}, 8)
	p.onPark = func() { parked <- struct{}{} }
	defer p.close()
	runOnPool(t, p, 0)
	select {
	case <-parked:
	case <-time.After(10 * time.Second):
		t.Fatal("the goroutine never parked")
	}
	// Half its idle time into the park (the scenario, not a
	// synchronization: the next run must find the timer armed), another
	// run, handed to the parked goroutine.
	<-time.After(idleFor / 2)
	ended := runOnPool(t, p, 0)
	if at := waitPoolExit(t, exited); at.Sub(ended) < idleFor {
		t.Fatalf("the goroutine exited %v after its run, before its idle time %v", at.Sub(ended), idleFor)
	}
}
