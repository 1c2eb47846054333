package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

// sharedStore is the in-memory store as several instances would share it:
// every write is delivered to every watch, in order, from one goroutine
// per watch, and the test can deliver any record by hand (a duplicate, a
// stale one). Leases are granted by HoldLease and lapse when released.
type sharedStore struct {
	taskstore.Store
	lease time.Duration

	mu      sync.Mutex
	alive   map[string]bool
	watches []chan taskstore.Record
}

func newSharedStore(lease time.Duration) *sharedStore {
	return &sharedStore{Store: taskstore.NewMemory(taskstore.Options{}), lease: lease, alive: map[string]bool{}}
}

func (s *sharedStore) Create(ctx context.Context, rec taskstore.Record) (taskstore.Record, bool, error) {
	out, created, err := s.Store.Create(ctx, rec)
	if err == nil && created {
		s.deliver(out)
	}
	return out, created, err
}

func (s *sharedStore) Update(ctx context.Context, next taskstore.Record) (taskstore.Record, error) {
	out, err := s.Store.Update(ctx, next)
	if err == nil {
		s.deliver(out)
	}
	return out, err
}

// deliver hands rec to every watch.
func (s *sharedStore) deliver(rec taskstore.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watches {
		w <- rec
	}
}

func (s *sharedStore) Watch(_ context.Context, changed func(taskstore.Record)) (func(), error) {
	ch, quit, done := make(chan taskstore.Record, 1024), make(chan struct{}), make(chan struct{})
	s.mu.Lock()
	s.watches = append(s.watches, ch)
	s.mu.Unlock()
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case r := <-ch:
				changed(r)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.watches = slices.DeleteFunc(s.watches, func(c chan taskstore.Record) bool { return c == ch })
			s.mu.Unlock()
			close(quit)
		})
		<-done
	}, nil
}

func (s *sharedStore) HoldLease(_ context.Context, owner string) (func(), error) {
	s.mu.Lock()
	s.alive[owner] = true
	s.mu.Unlock()
	return func() { s.mu.Lock(); delete(s.alive, owner); s.mu.Unlock() }, nil
}

func (s *sharedStore) LeaseAlive(_ context.Context, owner string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.alive[owner], nil
}

func (s *sharedStore) LeaseDuration() time.Duration { return s.lease }

// blocking is a round that reports its start and waits for its context.
func blocking(started chan<- struct{}, stopped chan<- error) RunFunc {
	return func(ctx context.Context, _ *Input) Outcome {
		started <- struct{}{}
		<-ctx.Done()
		stopped <- ctx.Err()
		return result("too late")
	}
}

// stored puts a working task of alice's, run by owner, in the store.
func stored(t *testing.T, s taskstore.Store, owner string, resumable bool, created time.Time) taskstore.Record {
	t.Helper()
	r, _, err := s.Create(bg, taskstore.Record{
		ID: taskstore.NewID(), Principal: "alice", Method: "tools/call", Name: "slow", Params: []byte(`{"name":"slow"}`),
		Status: taskstore.StatusWorking, Owner: owner, Resumable: resumable, CreatedAt: created,
		TTL: time.Hour, Deadline: time.Now().Add(time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCancelElsewhereStopsTheRound cancels through engine B a task that
// engine A runs: the store's watch tells A, whose round's context ends,
// and A writes nothing over B's cancellation.
func TestCancelElsewhereStopsTheRound(t *testing.T) {
	s := newSharedStore(time.Hour)
	a := newHarness(t, s, nil)
	b := newHarness(t, s, nil)
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	rec := a.create(t, "slow", blocking(started, stopped))
	<-started
	if err := b.e.cancel(bg, "alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("A's round still runs 10s after the task was cancelled through B")
	}
	a.ev.waitEnded(t, rec.ID)
	if r := a.get(t, rec.ID); r.Status != taskstore.StatusCancelled || r.StatusMessage != "cancelled by the client" {
		t.Fatalf("the task is %s %q", r.Status, r.StatusMessage)
	}
	a.ev.mu.Lock()
	told := a.ev.changes[rec.ID]
	a.ev.mu.Unlock()
	if len(told) != 0 {
		t.Fatalf("A reported changes %v for a task B cancelled", told)
	}
}

// TestWatchToleratesDuplicateAndStaleRecords delivers records twice and
// late: a stale record naming the runner a task was resumed from does not
// stop the round that runs it now, a finished task delivered twice ends
// once, and a task that another runner really took ends A's hold.
func TestWatchToleratesDuplicateAndStaleRecords(t *testing.T) {
	s := newSharedStore(time.Hour)
	prev := stored(t, s, "gone", true, time.Time{}) // left by a runner whose lease lapsed
	started, stopped := make(chan struct{}, 2), make(chan error, 2)
	h := &harness{ev: newEvents(), store: s, runs: map[string]RunFunc{"slow": blocking(started, stopped)}}
	a := newHarnessWith(t, h, nil)
	<-started // A resumed it
	if r := a.get(t, prev.ID); r.Owner != a.e.cfg.owner || r.Revision != prev.Revision+1 {
		t.Fatalf("after A started the task is owned by %q at revision %d", r.Owner, r.Revision)
	}
	marker := a.create(t, "marker", blocking(make(chan struct{}, 1), make(chan error, 1)))

	// The record of the previous runner, delivered late, twice.
	s.deliver(prev)
	s.deliver(prev)
	// Then the marker is cancelled elsewhere, and its record delivered
	// twice: once the marker's hold ended, the stale records were heard.
	cancelled := a.get(t, marker.ID)
	cancelled.Status, cancelled.Owner = taskstore.StatusCancelled, ""
	if _, err := s.Update(bg, cancelled); err != nil {
		t.Fatal(err)
	}
	cancelled = a.get(t, marker.ID)
	s.deliver(cancelled)
	a.ev.waitEnded(t, marker.ID)
	select {
	case err := <-stopped:
		t.Fatalf("a stale record stopped the resumed round: %v", err)
	default:
	}
	a.e.mu.Lock()
	_, held := a.e.tasks[prev.ID]
	a.e.mu.Unlock()
	if !held {
		t.Fatal("a stale record ended A's hold on the task it runs")
	}

	// Another runner takes the task (its lease having lapsed, say): A's
	// round ends, and A writes nothing.
	taken := a.get(t, prev.ID)
	taken.Owner = "other"
	if _, err := s.Update(bg, taken); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("A's round still runs 10s after another runner took the task")
	}
	a.ev.waitEnded(t, prev.ID)
	if r := a.get(t, prev.ID); r.Status != taskstore.StatusWorking || r.Owner != "other" {
		t.Fatalf("after A let go the task is %s, owned by %q", r.Status, r.Owner)
	}
}

// TestLeaseSweepSettlesLapsedRunners lets a runner's lease lapse while
// engine A runs: A's sweep fails that runner's task with the message of a
// restart and tells its observer, and leaves alone the task of a runner
// whose lease is alive.
func TestLeaseSweepSettlesLapsedRunners(t *testing.T) {
	s := newSharedStore(20 * time.Millisecond)
	releaseLive, _ := s.HoldLease(bg, "live")
	defer releaseLive()
	releaseDying, _ := s.HoldLease(bg, "dying")
	live := stored(t, s, "live", false, time.Now().Add(-time.Minute)) // settled first in each pass
	dying := stored(t, s, "dying", false, time.Time{})
	a := newHarness(t, s, nil)
	releaseDying()
	waitStatus(t, a, dying.ID, taskstore.StatusFailed)
	if r := a.get(t, dying.ID); r.StatusMessage != taskstore.StoppedMessage {
		t.Fatalf("the lapsed runner's task failed with %q", r.StatusMessage)
	}
	if r := a.get(t, live.ID); r.Status != taskstore.StatusWorking || r.Owner != "live" || r.Revision != live.Revision {
		t.Fatalf("the live runner's task is %s, owned by %q, at revision %d", r.Status, r.Owner, r.Revision)
	}
}

// TestClosingLeavesTasksRunElsewhere closes engine B while it holds a task
// that engine A runs (B took hold of it for a tasks/update that found it
// working; the store offers no watch that would end B's hold): B's close
// leaves the task to A instead of failing it.
func TestClosingLeavesTasksRunElsewhere(t *testing.T) {
	s := taskstore.NewMemory(taskstore.Options{})
	a := newHarness(t, s, nil)
	b := newHarness(t, s, nil)
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	rec := a.create(t, "slow", blocking(started, stopped))
	<-started
	if err := b.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"k": json.RawMessage(`{}`)}); !errors.Is(err, errNotWaiting) {
		t.Fatalf("tasks/update through B of a working task: %v", err)
	}
	if err := b.e.close(bg); err != nil {
		t.Fatal(err)
	}
	if r := a.get(t, rec.ID); r.Status != taskstore.StatusWorking || r.Owner != a.e.cfg.owner {
		t.Fatalf("after B closed the task is %s, owned by %q", r.Status, r.Owner)
	}
	select {
	case err := <-stopped:
		t.Fatalf("A's round stopped when B closed: %v", err)
	default:
	}
}

// TestUpdateAndCancelElsewhereTakeNoHandle: tasks/update and tasks/cancel
// through engine B of a task engine A runs leave B holding nothing (no
// handle, no tree actor, no deadline timer of its own), and the cancel
// still reaches A's round.
func TestUpdateAndCancelElsewhereTakeNoHandle(t *testing.T) {
	s := newSharedStore(time.Hour)
	a := newHarness(t, s, nil)
	b := newHarness(t, s, nil)
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	rec := a.create(t, "slow", blocking(started, stopped))
	<-started
	if err := b.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"k": json.RawMessage(`{}`)}); !errors.Is(err, errNotWaiting) {
		t.Fatalf("tasks/update through B of a working task: %v", err)
	}
	if b.e.holds(rec.ID) {
		t.Fatal("B holds a handle on a task A runs, after tasks/update")
	}
	if err := b.e.cancel(bg, "alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	if b.e.holds(rec.ID) {
		t.Fatal("B holds a handle on the task after tasks/cancel")
	}
	b.ev.mu.Lock()
	starts := b.ev.starts[rec.ID]
	b.ev.mu.Unlock()
	if starts != 0 {
		t.Fatalf("B started the task %d times in its tree, as if it ran it", starts)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("A's round still runs 10s after the task was cancelled through B")
	}
	a.ev.waitEnded(t, rec.ID)
	if r := a.get(t, rec.ID); r.Status != taskstore.StatusCancelled {
		t.Fatalf("the task is %s", r.Status)
	}
}

// racingStore is a shared store in which the task ends (completed, by
// its runner) just before the first cancellation written through it
// lands, so that cancellation conflicts.
type racingStore struct {
	*sharedStore
	once sync.Once
}

func (s *racingStore) Update(ctx context.Context, next taskstore.Record) (taskstore.Record, error) {
	if next.Status == taskstore.StatusCancelled {
		s.once.Do(func() {
			cur, err := s.sharedStore.Get(ctx, next.ID)
			if err != nil {
				panic(err)
			}
			cur.Status, cur.Owner, cur.Result = taskstore.StatusCompleted, "", json.RawMessage(`{"content":[]}`)
			if _, err := s.sharedStore.Update(ctx, cur); err != nil {
				panic(err)
			}
		})
	}
	return s.sharedStore.Update(ctx, next)
}

// TestCancelRereadsATaskThatMoved: a cancellation through B that
// conflicts with the runner's last write reads the task again and, the
// task having ended, acknowledges without changing it.
func TestCancelRereadsATaskThatMoved(t *testing.T) {
	s := &racingStore{sharedStore: newSharedStore(time.Hour)}
	a := newHarness(t, s, nil)
	b := newHarness(t, s, nil)
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	rec := a.create(t, "slow", blocking(started, stopped))
	<-started
	if err := b.e.cancel(bg, "alice", rec.ID); err != nil {
		t.Fatalf("tasks/cancel through B as the task ended: %v", err)
	}
	if r := a.get(t, rec.ID); r.Status != taskstore.StatusCompleted {
		t.Fatalf("the task is %s, want completed: the cancellation overwrote the end", r.Status)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("A's round still runs 10s after its task ended")
	}
}
