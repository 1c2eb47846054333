package executor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func quietExecutor(cfg Config) *Executor {
	cfg.Logger = slog.New(slog.DiscardHandler)
	return New(cfg)
}

// results collects deliveries.
type results struct {
	mu  sync.Mutex
	got map[string]Result
	ch  chan string
}

func newResults() *results { return &results{got: map[string]Result{}, ch: make(chan string, 1024)} }

func (r *results) done(key string) func(Result) {
	return func(res Result) {
		r.mu.Lock()
		if _, dup := r.got[key]; dup {
			panic("delivered twice: " + key)
		}
		r.got[key] = res
		r.mu.Unlock()
		r.ch <- key
	}
}

func (r *results) wait(t *testing.T, key string) Result {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		res, ok := r.got[key]
		r.mu.Unlock()
		if ok {
			return res
		}
		select {
		case <-r.ch:
		case <-timeout:
			t.Fatalf("no delivery for %s", key)
		}
	}
}

func (r *results) has(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.got[key]
	return ok
}

func closeExec(t *testing.T, e *Executor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// blocker is a job body that waits for release (or its context).
type blocker struct {
	started chan string
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 1024), release: make(chan struct{})}
}

func (b *blocker) run(name string) func(context.Context) any {
	return func(ctx context.Context) any {
		b.started <- name
		select {
		case <-b.release:
			return name
		case <-ctx.Done():
			return "cancelled:" + name
		}
	}
}

func recv(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timed out")
		return ""
	}
}

func TestExecutorBoundsConcurrencyAndQueue(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 2, MaxQueue: 3})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	keys := []string{"a", "b", "c", "d", "e"}
	for _, k := range keys {
		if _, err := s.Submit(k, Job{Run: b.run(k), Done: r.done(k)}); err != nil {
			t.Fatalf("submit %s: %v", k, err)
		}
	}
	recv(t, b.started)
	recv(t, b.started)
	if st := e.Stats(); st.Running != 2 || st.Queued != 3 {
		t.Fatalf("stats = %+v, want 2 running and 3 queued", st)
	}
	select {
	case k := <-b.started:
		t.Fatalf("%s started beyond MaxConcurrency", k)
	default:
	}
	// Queue full: the sixth is refused.
	if _, err := s.Submit("f", Job{Run: b.run("f")}); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("sixth submit: %v, want ErrOverloaded", err)
	}
	close(b.release)
	for _, k := range keys {
		if res := r.wait(t, k); res.Status != Completed || res.Value != k {
			t.Fatalf("%s: %+v", k, res)
		}
	}
	if st := e.Stats(); st.Rejected != 1 || st.Submitted != 5 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestExecutorQueueIsFIFO(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 10})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	var order []string
	var mu sync.Mutex
	gate := make(chan struct{})
	r := newResults()
	for i, k := range []string{"first", "q1", "q2", "q3"} {
		run := func(ctx context.Context) any {
			mu.Lock()
			order = append(order, k)
			mu.Unlock()
			if i == 0 {
				<-gate
			}
			return nil
		}
		if _, err := s.Submit(k, Job{Run: run, Done: r.done(k)}); err != nil {
			t.Fatal(err)
		}
	}
	close(gate)
	r.wait(t, "q3")
	mu.Lock()
	defer mu.Unlock()
	if got := order; len(got) != 4 || got[1] != "q1" || got[2] != "q2" || got[3] != "q3" {
		t.Fatalf("order = %v", got)
	}
}

func TestExecutorDuplicateKey(t *testing.T) {
	e := quietExecutor(Config{})
	defer closeExec(t, e)
	s1, s2 := e.NewScope(context.Background()), e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	if _, err := s1.Submit(int64(1), Job{Run: b.run("1"), Done: r.done("s1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Submit(int64(1), Job{Run: b.run("dup")}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate key in one scope: %v", err)
	}
	// Keys are per scope: another submitter may use the same key.
	if _, err := s2.Submit(int64(1), Job{Run: b.run("other"), Done: r.done("s2")}); err != nil {
		t.Fatalf("same key in another scope: %v", err)
	}
	close(b.release)
	r.wait(t, "s1")
	r.wait(t, "s2")
	// Once delivered, the key is free again.
	if _, err := s1.Submit(int64(1), Job{Run: func(context.Context) any { return nil }, Done: r.done("again")}); err != nil {
		t.Fatalf("reuse after completion: %v", err)
	}
	r.wait(t, "again")
}

func TestExecutorDeadline(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	r := newResults()
	ctxDone := make(chan struct{})
	release := make(chan struct{})
	if _, err := s.Submit("slow", Job{
		Timeout: 20 * time.Millisecond,
		Run: func(ctx context.Context) any {
			<-ctx.Done()
			close(ctxDone)
			<-release // ignores cancellation for a while: the slot stays held
			return "late"
		},
		Done: r.done("slow"),
	}); err != nil {
		t.Fatal(err)
	}
	// Queued behind it: its deadline counts from submission.
	if _, err := s.Submit("queued", Job{Timeout: 30 * time.Millisecond, Run: func(context.Context) any { return "ran" }, Done: r.done("queued")}); err != nil {
		t.Fatal(err)
	}
	if res := r.wait(t, "slow"); res.Status != TimedOut {
		t.Fatalf("slow: %+v", res)
	}
	<-ctxDone
	if res := r.wait(t, "queued"); res.Status != TimedOut {
		t.Fatalf("queued: %+v, want TimedOut while waiting for a slot", res)
	}
	if st := e.Stats(); st.Running != 1 {
		t.Fatalf("the slot must stay held until the worker returns: %+v", st)
	}
	close(release)
	e.busy.Wait()
	if st := e.Stats(); st.Running != 0 || st.Queued != 0 || st.TimedOut != 2 {
		t.Fatalf("after the worker returned: %+v", st)
	}
}

func TestExecutorCancelDeliversNothing(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	r := newResults()
	stubborn := make(chan struct{})
	entered := make(chan string, 2)
	t1, err := s.Submit("running", Job{Run: func(ctx context.Context) any {
		entered <- "running"
		<-ctx.Done()
		<-stubborn // returns a value after cancellation, as a careless handler would
		return "value"
	}, Done: r.done("running")})
	if err != nil {
		t.Fatal(err)
	}
	recv(t, entered)
	t2, err := s.Submit("queued", Job{Run: func(context.Context) any { entered <- "queued"; return nil }, Done: r.done("queued")})
	if err != nil {
		t.Fatal(err)
	}
	if !t2.Cancel() || !t1.Cancel() {
		t.Fatal("Cancel did not prevent delivery")
	}
	if t1.Cancel() {
		t.Fatal("second Cancel reported success")
	}
	close(stubborn)
	e.busy.Wait()
	if r.has("running") || r.has("queued") {
		t.Fatal("a cancelled job was delivered")
	}
	select {
	case k := <-entered:
		t.Fatalf("cancelled queued job %s ran", k)
	default:
	}
	if st := e.Stats(); st.Cancelled != 2 || st.Running != 0 || st.Queued != 0 {
		t.Fatalf("stats = %+v", st)
	}
}

// When the submitter dies (its scope's context ends), its queued work is
// dropped, its running work cancelled, and nothing is delivered; other
// submitters are unaffected.
func TestExecutorOwnerDeath(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 2, MaxQueue: 8})
	defer closeExec(t, e)
	ownerCtx, ownerDies := context.WithCancel(context.Background())
	owner := e.NewScope(ownerCtx)
	other := e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	var ran atomic.Int32
	for _, k := range []string{"o1", "o2"} {
		if _, err := owner.Submit(k, Job{Run: b.run(k), Done: r.done(k)}); err != nil {
			t.Fatal(err)
		}
	}
	recv(t, b.started)
	recv(t, b.started)
	if _, err := owner.Submit("o3", Job{Run: func(context.Context) any { ran.Add(1); return nil }, Done: r.done("o3")}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Submit("x", Job{Run: func(context.Context) any { return "x" }, Done: r.done("x")}); err != nil {
		t.Fatal(err)
	}
	ownerDies()
	if res := r.wait(t, "x"); res.Status != Completed {
		t.Fatalf("other submitter's job: %+v", res)
	}
	e.busy.Wait()
	for _, k := range []string{"o1", "o2", "o3"} {
		if r.has(k) {
			t.Fatalf("%s delivered after its owner died", k)
		}
	}
	if ran.Load() != 0 {
		t.Fatal("queued job of a dead owner ran")
	}
	if _, err := owner.Submit("late", Job{Run: func(context.Context) any { return nil }}); !errors.Is(err, ErrScopeClosed) {
		t.Fatalf("submit after owner death: %v", err)
	}
}

type ownerKey struct{}

// A running job's context ends when its owner's does, keeps the owner's
// values, and has the owner's deadline when the owner has one.
func TestExecutorOwnerDeathCancelsARunningJobsContext(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 2})
	defer closeExec(t, e)
	ownerCtx, ownerDies := context.WithCancel(context.WithValue(context.Background(), ownerKey{}, "owner"))
	owner := e.NewScope(ownerCtx)
	deadline := time.Now().Add(time.Hour)
	timedCtx, cancelTimed := context.WithDeadline(context.Background(), deadline)
	defer cancelTimed()
	timed := e.NewScope(timedCtx)
	seen := make(chan string, 2)
	if _, err := owner.Submit("o", Job{Run: func(ctx context.Context) any {
		v, _ := ctx.Value(ownerKey{}).(string)
		seen <- v
		select {
		case <-ctx.Done():
			seen <- "cancelled: " + context.Cause(ctx).Error()
		case <-time.After(10 * time.Second):
			seen <- "still running after its owner died"
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, seen); got != "owner" {
		t.Fatalf("the job's context value = %q, want the owner's", got)
	}
	ownerDies()
	if got, want := recv(t, seen), "cancelled: "+context.Canceled.Error(); got != want {
		t.Fatalf("job after its owner died: %q, want %q", got, want)
	}
	tk, err := timed.Submit("t", Job{Run: func(context.Context) any { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := tk.Context().Deadline(); !ok || !d.Equal(deadline) {
		t.Fatalf("job deadline = %v, %v; want the owner's %v", d, ok, deadline)
	}
	e.busy.Wait()
}

func TestExecutorPanicIsFailedAndFreesTheSlot(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	r := newResults()
	if _, err := s.Submit("boom", Job{Run: func(context.Context) any { panic("boom") }, Done: r.done("boom")}); err != nil {
		t.Fatal(err)
	}
	if res := r.wait(t, "boom"); res.Status != Failed || res.Panic != "boom" {
		t.Fatalf("boom: %+v", res)
	}
	if _, err := s.Submit("next", Job{Run: func(context.Context) any { return "ok" }, Done: r.done("next")}); err != nil {
		t.Fatal(err)
	}
	if res := r.wait(t, "next"); res.Status != Completed || res.Value != "ok" {
		t.Fatalf("next: %+v", res)
	}
}

func TestExecutorCloseAbandonsStubbornWork(t *testing.T) {
	e := quietExecutor(Config{})
	s := e.NewScope(context.Background())
	release := make(chan struct{})
	started := make(chan string, 1)
	if _, err := s.Submit("stubborn", Job{Run: func(context.Context) any { started <- ""; <-release; return nil }}); err != nil {
		t.Fatal(err)
	}
	recv(t, started)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want the grace period's error", err)
	}
	if _, err := s.Submit("after", Job{Run: func(context.Context) any { return nil }}); !errors.Is(err, ErrScopeClosed) {
		t.Fatalf("submit after Close: %v", err)
	}
	close(release)
	closeExec(t, e)
}

func TestExecutorSubscriptionSlots(t *testing.T) {
	e := quietExecutor(Config{MaxSubscriptions: 2})
	defer closeExec(t, e)
	r1, ok1 := e.AcquireSubscription()
	_, ok2 := e.AcquireSubscription()
	_, ok3 := e.AcquireSubscription()
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("acquire: %t %t %t, want true true false", ok1, ok2, ok3)
	}
	r1()
	r1() // idempotent
	if _, ok := e.AcquireSubscription(); !ok {
		t.Fatal("a released slot was not returned")
	}
	if _, ok := e.AcquireSubscription(); ok {
		t.Fatal("double release returned two slots")
	}
}

// Every submitted job ends in exactly one outcome under a storm of
// concurrent submits, cancels and deadlines: each admitted job is either
// delivered once or cancelled once. outstanding counts admitted jobs
// without an outcome; a second outcome would drive it negative (a panic),
// a lost one would leave Wait hanging.
func TestExecutorExactlyOneOutcome(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 4, MaxQueue: 64})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	var outstanding sync.WaitGroup
	var deliveries sync.Map
	var submitters sync.WaitGroup
	const n = 2000
	for i := 0; i < n; i++ {
		submitters.Add(1)
		outstanding.Add(1)
		go func() {
			defer submitters.Done()
			key := i
			tk, err := s.Submit(key, Job{
				Timeout: time.Duration(i%7) * time.Millisecond,
				Run: func(ctx context.Context) any {
					select {
					case <-ctx.Done():
					case <-time.After(time.Duration(i%3) * time.Millisecond):
					}
					return nil
				},
				Done: func(Result) {
					if _, dup := deliveries.LoadOrStore(key, true); dup {
						panic("delivered twice")
					}
					outstanding.Done()
				},
			})
			if err != nil {
				outstanding.Done() // refused: that is its outcome
				return
			}
			if i%5 == 0 && tk.Cancel() {
				outstanding.Done()
			}
		}()
	}
	submitters.Wait()
	all := make(chan struct{})
	go func() { outstanding.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatal("some admitted jobs never reached an outcome")
	}
}

// A queued job that is cancelled gives its place in the queue back at
// once: the queue is not full of work that will never run.
func TestExecutorCancelledQueuedJobLeavesTheQueue(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 1})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	if _, err := s.Submit("running", Job{Run: b.run("running"), Done: r.done("running")}); err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	queued, err := s.Submit("queued", Job{Run: b.run("queued"), Done: r.done("queued")})
	if err != nil {
		t.Fatal(err)
	}
	if !queued.Cancel() {
		t.Fatal("Cancel of a queued job prevented no delivery")
	}
	if st := e.Stats(); st.Queued != 0 {
		t.Fatalf("stats after cancelling the queued job: %+v, want an empty queue", st)
	}
	if _, err := s.Submit("next", Job{Run: b.run("next"), Done: r.done("next")}); err != nil {
		t.Fatalf("the cancelled job still held its place in the queue: %v", err)
	}
	close(b.release)
	r.wait(t, "running")
	r.wait(t, "next")
	if r.has("queued") {
		t.Fatal("the cancelled job was delivered")
	}
}

// A freed slot starts only a job still waiting. Cancel first marks the
// job cancelled and then, under the executor's lock, takes it out of the
// queue; a slot that frees in between finds it still queued and must not
// run it. The test takes Cancel's first step itself, so the window stays
// open until the slot has been handed on.
func TestExecutorStartsNoJobCancelledInTheQueue(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4})
	defer closeExec(t, e)
	s := e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	if _, err := s.Submit("running", Job{Run: b.run("running"), Done: r.done("running")}); err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	var ran atomic.Bool
	queued, err := s.Submit("queued", Job{Run: func(context.Context) any { ran.Store(true); return nil }, Done: r.done("queued")})
	if err != nil {
		t.Fatal(err)
	}
	if !queued.j.state.CompareAndSwap(stateQueued, stateCancelled) {
		t.Fatal("the job was not queued")
	}
	close(b.release)
	r.wait(t, "running")
	e.busy.Wait() // the worker has looked at the queue and given the slot back
	if ran.Load() || r.has("queued") {
		t.Fatal("a job cancelled in the queue ran")
	}
	queued.j.finishTerminal(true) // Cancel's second step
	if st := e.Stats(); st.Running != 0 || st.Queued != 0 {
		t.Fatalf("stats = %+v", st)
	}
}

// A scope's Close marks it closed under the executor's lock, then drops
// its jobs one by one; a slot that frees in between must not start a
// queued job of that scope. The test takes Close's first step itself.
func TestExecutorStartsNoJobOfAClosingScope(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4})
	defer closeExec(t, e)
	other, closing := e.NewScope(context.Background()), e.NewScope(context.Background())
	b, r := newBlocker(), newResults()
	if _, err := other.Submit("running", Job{Run: b.run("running"), Done: r.done("running")}); err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	var ran atomic.Bool
	queued, err := closing.Submit("queued", Job{Run: func(context.Context) any { ran.Store(true); return nil }, Done: r.done("queued")})
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	closing.closed = true
	e.mu.Unlock()
	close(b.release)
	r.wait(t, "running")
	e.busy.Wait()
	if ran.Load() || r.has("queued") {
		t.Fatal("a queued job of a closing scope ran")
	}
	if !queued.Cancel() { // what the rest of Close does
		t.Fatal("the job of the closing scope had already ended")
	}
	closing.stop()
}

// A deadline that fires after the job's owner died, before the owner's
// scope has closed, delivers nothing: the owner must get no outcome. The
// test stops the scope from closing by itself, so the deadline certainly
// finds the owner dead and the scope open.
func TestExecutorDeadlineAfterOwnerDeathDeliversNothing(t *testing.T) {
	e := quietExecutor(Config{})
	defer closeExec(t, e)
	ownerCtx, ownerDies := context.WithCancel(context.Background())
	s := e.NewScope(ownerCtx)
	s.stop() // no Close when the owner dies: the window stays open
	b, r := newBlocker(), newResults()
	tk, err := s.Submit("job", Job{Timeout: -1, Run: b.run("job"), Done: r.done("job")})
	if err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	ownerDies()
	tk.j.expire() // the deadline fires
	e.busy.Wait()
	if r.has("job") {
		t.Fatalf("a job of a dead owner was delivered: %+v", r.got["job"])
	}
	if st := tk.State(); st != "cancelled" {
		t.Fatalf("state %s, want cancelled", st)
	}
	close(b.release)
}

// A job that returns after its owner died delivers nothing, also when the
// owner's scope has not closed yet.
func TestExecutorJobReturningAfterOwnerDeathDeliversNothing(t *testing.T) {
	e := quietExecutor(Config{})
	defer closeExec(t, e)
	ownerCtx, ownerDies := context.WithCancel(context.Background())
	s := e.NewScope(ownerCtx)
	s.stop() // no Close when the owner dies: the window stays open
	r := newResults()
	tk, err := s.Submit("job", Job{Run: func(context.Context) any { ownerDies(); return "value" }, Done: r.done("job")})
	if err != nil {
		t.Fatal(err)
	}
	e.busy.Wait()
	if r.has("job") {
		t.Fatalf("a job that returned after its owner died was delivered: %+v", r.got["job"])
	}
	if st := tk.State(); st != "cancelled" {
		t.Fatalf("state %s, want cancelled", st)
	}
}

// A queued job whose owner died while it waited does not run when a slot
// frees, also when the owner's scope has not closed yet.
func TestExecutorQueuedJobOfADeadOwnerDoesNotRun(t *testing.T) {
	e := quietExecutor(Config{MaxConcurrency: 1, MaxQueue: 4})
	defer closeExec(t, e)
	other := e.NewScope(context.Background())
	ownerCtx, ownerDies := context.WithCancel(context.Background())
	owner := e.NewScope(ownerCtx)
	owner.stop() // no Close when the owner dies: the window stays open
	b, r := newBlocker(), newResults()
	if _, err := other.Submit("running", Job{Run: b.run("running"), Done: r.done("running")}); err != nil {
		t.Fatal(err)
	}
	recv(t, b.started)
	var ran atomic.Bool
	tk, err := owner.Submit("queued", Job{Run: func(context.Context) any { ran.Store(true); return nil }, Done: r.done("queued")})
	if err != nil {
		t.Fatal(err)
	}
	ownerDies()
	close(b.release)
	r.wait(t, "running")
	e.busy.Wait()
	if ran.Load() || r.has("queued") {
		t.Fatal("a queued job ran after its owner died")
	}
	if st := tk.State(); st != "cancelled" {
		t.Fatalf("state %s, want cancelled", st)
	}
}
