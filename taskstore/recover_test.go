package taskstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

// leasedMemory is the in-memory store with leases the test grants and
// takes back by hand.
type leasedMemory struct {
	taskstore.Store
	mu    sync.Mutex
	alive map[string]bool
}

func (m *leasedMemory) HoldLease(_ context.Context, owner string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.alive[owner] = true
	return func() { m.mu.Lock(); delete(m.alive, owner); m.mu.Unlock() }, nil
}

func (m *leasedMemory) LeaseAlive(_ context.Context, owner string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.alive[owner], nil
}

func (m *leasedMemory) LeaseDuration() time.Duration { return time.Second }

// working stores a working task run by owner.
func working(t *testing.T, s taskstore.Store, owner string, resumable bool) taskstore.Record {
	t.Helper()
	r, _, err := s.Create(context.Background(), taskstore.Record{
		ID: taskstore.NewID(), Method: "tools/call", Name: "slow", Params: []byte(`{}`),
		Status: taskstore.StatusWorking, Owner: owner, Resumable: resumable,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecoverLeavesTasksWhoseRunnerHoldsALease settles, on a store with
// leases, only the tasks whose runner's lease is gone: one whose runner
// is alive on another instance stays as it is, one of the recovering
// runner itself too, and the one of a runner whose lease lapsed fails as
// after a restart (or is resumed, when it can be). Each write is reported.
func TestRecoverLeavesTasksWhoseRunnerHoldsALease(t *testing.T) {
	ctx := context.Background()
	s := &leasedMemory{Store: taskstore.NewMemory(taskstore.Options{}), alive: map[string]bool{}}
	release, _ := s.HoldLease(ctx, "alive")
	defer release()
	live := working(t, s, "alive", false)
	own := working(t, s, "me", false)
	dead := working(t, s, "gone", false)
	deadResumable := working(t, s, "gone", true)

	var wrote []string
	resumed, err := taskstore.RecoverEach(ctx, s, "me", nil, func(rec taskstore.Record, from taskstore.Status) {
		if from != taskstore.StatusWorking {
			t.Errorf("task %s reported as coming from %s", rec.ID, from)
		}
		wrote = append(wrote, rec.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != 1 || resumed[0].ID != deadResumable.ID || resumed[0].Owner != "me" {
		t.Fatalf("resumed %+v, want the lapsed runner's resumable task", resumed)
	}
	for _, r := range []taskstore.Record{live, own} {
		got, _ := s.Get(ctx, r.ID)
		if got.Status != taskstore.StatusWorking || got.Owner != r.Owner || got.Revision != r.Revision {
			t.Errorf("the task of live runner %s became %s (owner %q, revision %d)", r.Owner, got.Status, got.Owner, got.Revision)
		}
	}
	got, _ := s.Get(ctx, dead.ID)
	if got.Status != taskstore.StatusFailed || got.StatusMessage != taskstore.StoppedMessage || got.Owner != "" {
		t.Errorf("the lapsed runner's task is %s %q (owner %q)", got.Status, got.StatusMessage, got.Owner)
	}
	if len(wrote) != 2 {
		t.Errorf("wrote reported %v, want the two settled tasks", wrote)
	}

	// Once the live runner's lease is given up, its task is settled too.
	release()
	if _, err := taskstore.Recover(ctx, s, "me", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, live.ID); got.Status != taskstore.StatusFailed || got.StatusMessage != taskstore.StoppedMessage {
		t.Errorf("after its lease was released the task is %s %q", got.Status, got.StatusMessage)
	}
}

// TestRecoverWithoutLeasesSettlesEveryTask keeps the rule of one process
// per store: without leases, every working task is settled, whoever ran
// it.
func TestRecoverWithoutLeasesSettlesEveryTask(t *testing.T) {
	ctx := context.Background()
	s := taskstore.NewMemory(taskstore.Options{})
	r := working(t, s, "other", false)
	if _, err := taskstore.Recover(ctx, s, "me", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, r.ID); got.Status != taskstore.StatusFailed {
		t.Fatalf("the task is %s", got.Status)
	}
}
