package actors

// The request actor: one per request in flight, owning its cancellation.

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// requestActor stands for one admitted request in the tree. Its work runs
// in the executor; the actor owns the work's cancellation: stopping it,
// for whatever reason (a notifications/cancelled, a client disconnect, the
// owner's death), cancels the work, and the executor then delivers nothing.
type requestActor struct {
	s     *system
	entry *reqEntry
}

// reqEntry is the connection's record of one admitted request. It is
// created by the goroutine that admits the request; once the connection
// actor has booked it (conn_requests.go), ticket and pid belong to that
// actor.
type reqEntry struct {
	id       jsonrpc.ID
	method   string
	started  time.Time
	deadline time.Time
	ticket   *executor.Ticket
	pid      *actor.PID
	// conn and call are the job: the entry is the executor.Task its
	// connection submits, so a request costs no closures.
	conn *connActor
	call *dispatch.Call

	// cancelled is set by the connection when the client cancels the
	// request; the writer then drops the request's frames still waiting.
	cancelled atomic.Bool
	// done is set once the request's outcome has been written (or
	// dropped), before its end is logged, so a connection that books the
	// admission late does not record it.
	done atomic.Bool
	// response is the frame of the request's outcome, posted to the
	// writer's outbox: part of the record, so it costs no allocation.
	response writeFrame
	// hprev and hnext link the entry among its connection's handlers
	// running (handlerSet); guarded by the set's lock.
	hprev, hnext *reqEntry
}

// Run executes the request on an executor worker (executor.Task).
func (e *reqEntry) Run(ctx context.Context) any {
	h := &e.conn.h.handlers
	h.add(e)
	defer h.remove(e)
	return e.conn.cfg.Runtime.Execute(ctx, e.call)
}

// Done delivers the request's outcome (executor.Task).
func (e *reqEntry) Done(r executor.Result) { e.conn.deliver(e, r) }

// frameWritten ends the request once its response is written, dropped or
// refused (frameOwner): it runs on the pump's goroutine, or on whichever
// decided the frame's fate, and only logs the end for the connection.
func (e *reqEntry) frameWritten(error) {
	e.done.Store(true)
	e.conn.logRequest(requestEvent{e: e, ended: true})
}

func (r *requestActor) describe() (tree.Kind, map[string]string) {
	e := r.entry
	attrs := map[string]string{
		"id":     e.id.String(),
		"method": e.method,
		"age":    time.Since(e.started).Round(time.Millisecond).String(),
	}
	if !e.deadline.IsZero() {
		attrs["deadline"] = e.deadline.UTC().Format(time.RFC3339Nano)
	}
	if e.ticket != nil {
		attrs["state"] = e.ticket.State()
	}
	return tree.KindRequest, attrs
}

func (r *requestActor) Receive(c actor.Context) {
	defer r.s.logPanic(c)
	if r.s.leafReceive(c, r) {
		return
	}
	if _, ok := c.Message().(*actor.Stopping); ok && r.entry.ticket != nil {
		r.entry.ticket.Cancel()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
