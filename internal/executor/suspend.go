// Giving a running job's slot back while it waits, and taking one again
// (the job's side of internal/slot).

package executor

import (
	"context"

	"github.com/snodo-go/snodo/internal/slot"
)

// jobContext is a job's context as its Run sees it: the job's cancellable
// context, answering slot.Key with the job.
type jobContext struct {
	context.Context
	j *job
}

// Value returns the job for slot.Key and defers every other key.
func (c *jobContext) Value(k any) any {
	if k == slot.Key {
		return slot.Slot(c.j)
	}
	return c.Context.Value(k)
}

// resumer is a suspended job asking for a slot again.
type resumer struct {
	j       *job
	granted chan struct{}
}

// Release gives the job's slot back while the job waits for something
// else: the slot goes to the first suspended job asking for one, else to
// the first queued job. The job's deadline keeps running. Releasing a
// slot not held does nothing.
func (j *job) Release() {
	e := j.e
	e.mu.Lock()
	if !j.holds {
		e.mu.Unlock()
		return
	}
	j.holds = false
	j.waiting.Store(true)
	e.suspended++
	next := e.passSlotLocked()
	if next != nil {
		e.busy.Add(1)
	}
	e.mu.Unlock()
	if next != nil {
		e.dispatch(next)
	}
}

// Reacquire takes a slot again for a job that released its own: at once
// when one is free and no other suspended job is asking, else in FIFO
// order among suspended jobs, ahead of every queued job (they were
// admitted earlier). It returns ctx's error, holding no slot, when ctx
// ends first.
func (j *job) Reacquire(ctx context.Context) error {
	e := j.e
	e.mu.Lock()
	if j.holds {
		e.mu.Unlock()
		return nil
	}
	if e.running < e.cfg.MaxConcurrency && e.resumers.Len() == 0 {
		e.running++
		e.suspended--
		j.holds = true
		j.waiting.Store(false)
		e.mu.Unlock()
		return nil
	}
	r := &resumer{j: j, granted: make(chan struct{})}
	elem := e.resumers.PushBack(r)
	e.mu.Unlock()
	select {
	case <-r.granted:
		return nil
	case <-ctx.Done():
		e.mu.Lock()
		defer e.mu.Unlock()
		if j.holds {
			return nil // granted as ctx ended: the slot is held
		}
		e.resumers.Remove(elem)
		return ctx.Err()
	}
}
