package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/taskstore"
)

// TestChaosThousandTasks runs 1,000 tasks at once whose work completes,
// fails, panics, asks for input, or hangs until its deadline, while other
// goroutines cancel some of them and answer others at random moments. In
// the end every task is in exactly one terminal state, reached once, and
// the engine holds nothing.
func TestChaosThousandTasks(t *testing.T) {
	testfixture.RunSeeded(t, testfixture.Seeds(t, 1), func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 18))
		store := taskstore.NewMemory(taskstore.Options{})
		h := newHarness(t, store, func(c *engineConfig) {
			c.maxTasks, c.maxRunning, c.timeout = 1024, 32, 300*time.Millisecond
		})
		const n = 1000
		kinds := make([]int, n)
		ids := make([]string, n)
		for i := range n {
			kinds[i] = rng.IntN(6)
		}
		var wg sync.WaitGroup
		for i := range n {
			kind := kinds[i]
			pause := time.Duration(rng.IntN(20)) * time.Millisecond
			run := func(ctx context.Context, in *Input) Outcome {
				select {
				case <-time.After(pause):
				case <-ctx.Done():
					return result("cancelled")
				}
				switch kind {
				case 0:
					return result("ok")
				case 1:
					return Outcome{Error: internalError("failed")}
				case 2:
					panic("boom")
				case 3, 4:
					if in == nil {
						return Outcome{InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)}}
					}
					return result("answered")
				default:
					<-ctx.Done() // until cancelled or the deadline
					return result("late")
				}
			}
			rec := h.create(t, "chaos", run)
			ids[i] = rec.ID
			if rng.IntN(3) == 0 || kind == 3 || kind == 4 {
				wg.Add(1)
				cancelIt := rng.IntN(2) == 0
				wait := time.Duration(rng.IntN(30)) * time.Millisecond
				go func() {
					defer wg.Done()
					time.Sleep(wait) // a random moment, not synchronization
					if cancelIt {
						if err := h.e.cancel(bg, "alice", rec.ID); err != nil {
							t.Errorf("cancel: %v", err)
						}
						return
					}
					// Answer whatever the task is waiting for, if anything.
					err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.k": json.RawMessage(`{"roots":[]}`)})
					if err != nil && !isNotWaiting(err) {
						t.Errorf("update: %v", err)
					}
				}()
			}
		}
		wg.Wait()
		// Tasks still waiting for input that nobody answered end at their
		// deadline; wait for every task to end.
		for _, id := range ids {
			h.ev.waitEnded(t, id)
		}
		h.ev.mu.Lock()
		for _, id := range ids {
			terminal := 0
			for _, st := range h.ev.changes[id] {
				if st.Terminal() {
					terminal++
				}
			}
			if h.ev.starts[id] != 1 {
				t.Errorf("task %s was taken in charge %d times", id, h.ev.starts[id])
			}
			if terminal != 1 {
				t.Errorf("task %s reached a terminal status %d times: %v", id, terminal, h.ev.changes[id])
			}
		}
		live := h.ev.live
		h.ev.mu.Unlock()
		for _, id := range ids {
			if r := h.get(t, id); !r.Status.Terminal() {
				t.Errorf("task %s is %s", id, r.Status)
			}
		}
		h.e.mu.Lock()
		held := len(h.e.tasks)
		h.e.mu.Unlock()
		if held != 0 || live != 0 {
			t.Fatalf("the engine still holds %d tasks (%d started and not ended)", held, live)
		}
		if left, _ := store.Unfinished(bg); len(left) != 0 {
			t.Fatalf("%d tasks unfinished in the store", len(left))
		}
	})
}

func isNotWaiting(err error) bool { return err != nil && errors.Is(err, errNotWaiting) }
