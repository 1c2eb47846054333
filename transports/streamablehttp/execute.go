package streamablehttp

// Execution: a prepared request runs under the host as one exchange,
// answered as JSON or as an event stream.

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// exchange connects the worker running a request to the goroutine
// answering it. It is the request's dispatch.Notifier: a notification is
// handed over and Notify waits until it is written, so notifications
// always precede the response.
type exchange struct {
	mu     sync.Mutex // one notification outstanding at a time
	events chan event // at most one notification and the final result
	// acks carries a notification's write outcome back to Notify; made
	// on first use (ackCh), since most calls send no notification.
	ackMu   sync.Mutex
	acks    chan error
	done    chan struct{} // closed when the exchange is over
	endOnce sync.Once
	// resumable: the request is in a session, so its event stream carries
	// ids and survives a dropped connection. closeStream is closed when
	// the handler asks for its stream to end (dispatch.CloseStream); it
	// is made only for a pollable exchange (setPollable), the only kind
	// whose stream can be closed, and stays nil (never ready) otherwise.
	resumable   bool
	pollable    bool // 2025-11-25, whose streams start with an id to resume from (SEP-1699)
	closeStream chan struct{}
	closeOnce   sync.Once
	// rt and call are the job's (Run), set when it is submitted.
	rt   *dispatch.Runtime
	call *dispatch.Call
}

type event struct {
	frame  []byte
	result executor.Result
	final  bool
}

func newExchange() *exchange {
	return &exchange{events: make(chan event, 2), done: make(chan struct{})}
}

// setPollable marks the exchange pollable, before it runs.
func (x *exchange) setPollable() {
	x.pollable = true
	x.closeStream = make(chan struct{})
}

// Notify implements dispatch.Notifier.
func (x *exchange) Notify(ctx context.Context, frame []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err // cancelled: nothing more is sent for this request
	}
	select {
	case x.events <- event{frame: frame}:
	case <-ctx.Done():
		return ctx.Err()
	case <-x.done:
		return errStreamClosed
	}
	select {
	case err := <-x.ackCh():
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-x.done:
		return errStreamClosed
	}
}

// CloseStream implements dispatch.StreamCloser: a request in a session
// has its event stream closed, its client reconnects with Last-Event-ID
// and gets the rest from the session's replay log; any other request
// cannot.
func (x *exchange) CloseStream() bool {
	if !x.pollable {
		return false
	}
	x.closeOnce.Do(func() { close(x.closeStream) })
	return true
}

// closed reports whether the handler has asked for its stream to end.
func (x *exchange) closed() bool {
	select {
	case <-x.closeStream:
		return true
	default:
		return false
	}
}

// end marks the exchange over: a notification still waiting, or one
// offered later (to a session's GET stream), fails instead of waiting.
func (x *exchange) end() { x.endOnce.Do(func() { close(x.done) }) }

// Run is the job's work (executor.Task): the exchange is the job, so
// starting it allocates no closures.
func (x *exchange) Run(ctx context.Context) any { return x.rt.Execute(ctx, x.call) }

// Done is the job's delivery (executor.Task). It never blocks: the buffer
// holds the one notification that may still be unread, and the result.
func (x *exchange) Done(r executor.Result) { x.events <- event{result: r, final: true} }

// ack reports a notification written (or not).
func (x *exchange) ack(err error) {
	select {
	case x.ackCh() <- err:
	default:
	}
}

// ackCh returns the acknowledgement channel, making it on first use.
func (x *exchange) ackCh() chan error {
	x.ackMu.Lock()
	defer x.ackMu.Unlock()
	if x.acks == nil { // mutation: http-exchange-makes-acks-once
		x.acks = make(chan error, 1)
	}
	return x.acks
}

// reqKey scopes duplicate ids to one peer (a connection).
type reqKey struct {
	peer string
	id   jsonrpc.ID
}

// Execute runs a prepared request. It returns a Response, or a
// StreamResponse once the handler has reported progress (and at once for
// subscriptions/listen, whose stream runs no job and holds no execution
// slot); the caller then writes the stream's events as
// [StreamResponse.Next] yields them.
//
// ctx is the client's side of the request: when it ends (the client went
// away) the request is cancelled, the handler's context ends, and Execute
// returns a 204 that need not be written, since nothing more is sent for
// a cancelled request.
func (h *Handler) Execute(ctx context.Context, p *Prepared) (*Response, *StreamResponse) {
	p.mu.Lock()
	if p.executed {
		p.mu.Unlock()
		return errorResponse(http.StatusInternalServerError, p.call.Info.ID, errWorker), nil
	}
	p.executed = true
	p.mu.Unlock()

	if p.get {
		return h.executeGet(p)
	}
	if p.stream {
		return h.executeListen(ctx, p)
	}
	call := p.call
	p.x.rt, p.x.call = h.rt, call
	spec := tree.RequestSpec{
		ID:      call.Info.ID,
		Method:  call.Info.Method,
		Peer:    p.peer,
		Timeout: h.o.limits.RequestTimeout,
		Task:    p.x,
	}
	if p.peer != "" {
		spec.Key = reqKey{p.peer, call.Info.ID}
	}
	task, err := h.host.Begin(spec)
	if err != nil {
		p.finish()
		switch {
		case errors.Is(err, executor.ErrDuplicate):
			return h.refuseCall(p, instrumentation.RefusalDuplicateID, http.StatusBadRequest, errDuplicateID), nil
		case errors.Is(err, executor.ErrOverloaded):
			return h.refuseCall(p, instrumentation.RefusalOverloaded, http.StatusServiceUnavailable, errCapacity), nil
		}
		return h.refuseCall(p, instrumentation.RefusalDraining, http.StatusServiceUnavailable, errShuttingDown), nil
	}
	p.mu.Lock()
	p.task = task
	p.mu.Unlock()

	select {
	case ev := <-p.x.events:
		if p.x.closed() {
			// The handler closed its stream before this event: the stream
			// starts (with its priming event), ends, and the event waits
			// in the replay log.
			task.SetStreaming()
			st := newStream(h, p, nil)
			held := ev // a copy, so that ev stays on the stack on the common path
			st.held = &held
			return nil, st
		}
		if !ev.final {
			task.SetStreaming()
			return nil, newStream(h, p, ev.frame)
		}
		status, frame := h.final(p, ev.result)
		resp := &Response{Status: status, ContentType: mediaJSON, Body: frame}
		if id := h.issueSession(p, ev.result); id != "" {
			resp.Header = http.Header{mcp.HeaderSessionID: {id}}
		}
		addRetryAfter(resp, ev.result)
		p.finish()
		return resp, nil
	case <-ctx.Done():
		task.Cancel()
		p.finish()
		return &Response{Status: http.StatusNoContent}, nil
	case <-p.clientCancel:
		// Cancelled by the client (notifications/cancelled in its
		// session): no JSON-RPC response follows, which 202 says.
		task.Cancel()
		p.finish()
		return &Response{Status: http.StatusAccepted}, nil
	case <-p.x.closeStream:
		// The handler asked for its stream to end before it had one: the
		// stream starts (with its priming event) and ends at once.
		task.SetStreaming()
		return nil, newStream(h, p, nil)
	case <-h.host.Context().Done():
		p.finish()
		return errorResponse(http.StatusServiceUnavailable, call.Info.ID, errShuttingDown), nil
	}
}

// final turns a job's result into the response status and frame.
func (h *Handler) final(p *Prepared, r executor.Result) (int, []byte) {
	id := p.call.Info.ID
	switch r.Status {
	case executor.Completed:
		out, _ := r.Value.(dispatch.Outcome)
		if out.Frame == nil {
			return http.StatusInternalServerError, encodeError(id, errWorker)
		}
		return statusFor(p.call.SessionEra(), out.ErrorCode), out.Frame
	case executor.TimedOut:
		return http.StatusGatewayTimeout, encodeError(id, errTimedOut)
	}
	return http.StatusInternalServerError, encodeError(id, errWorker)
}

// Handle prepares and executes req in one call, for hosts that need no
// step between the two.
func (h *Handler) Handle(ctx context.Context, req *Request) (*Response, *StreamResponse) {
	p, resp := h.Prepare(req)
	if resp != nil {
		return resp, nil
	}
	return h.Execute(ctx, p)
}
