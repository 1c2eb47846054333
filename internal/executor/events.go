package executor

// The executor's instrumentation events. Each emit is called only when the sink
// is set and never under the executor's mutex, so a slow sink slows the
// goroutine that emits, not admission as a whole. Counts are those seen
// at the decision.

import (
	"time"

	"github.com/snodo-go/snodo/instrumentation"
)

func (e *Executor) emitRejected(reason string, running, queued int) {
	e.sink.Executor(instrumentation.ExecutorEvent{
		Kind: instrumentation.ExecutorRejected, Reason: reason, Running: running, QueueDepth: queued,
	})
}

func (e *Executor) emitAdmitted(waits bool, running, queued int) {
	e.sink.Executor(instrumentation.ExecutorEvent{
		Kind: instrumentation.ExecutorAdmitted, Queued: waits, Running: running, QueueDepth: queued,
	})
}

func (e *Executor) emitStarted(j *job) {
	e.mu.Lock()
	running, queued := e.running, e.queue.Len()
	e.mu.Unlock()
	e.sink.Executor(instrumentation.ExecutorEvent{
		Kind: instrumentation.ExecutorStarted, Wait: time.Since(j.admitted), Running: running, QueueDepth: queued,
	})
}

// emitFinished reports the job's terminal state, which the caller has
// just won.
func (e *Executor) emitFinished(j *job, running, queued int) {
	status := (&Ticket{j: j}).State()
	e.sink.Executor(instrumentation.ExecutorEvent{
		Kind: instrumentation.ExecutorFinished, Status: status, Duration: time.Since(j.admitted),
		Running: running, QueueDepth: queued,
	})
}

func (e *Executor) emitSubscription(kind instrumentation.SubscriptionEventKind, open int, d time.Duration) {
	e.sink.Subscription(instrumentation.SubscriptionEvent{Kind: kind, Open: open, Duration: d})
}
