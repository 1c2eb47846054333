package actors

// The subscription actors: one per open listen stream, on a connection or
// under an HTTP request.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/mcpwire"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// errSubscriptionCap answers a subscriptions/listen over a cap: the
// connection's, or the executor's shared one.
var errSubscriptionCap = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Subscription limit reached"}

// listenCancelReason is the reason of the notifications/cancelled a
// connection sends after a stream the server ended.
const listenCancelReason = "subscription ended by the server"

// subEntry is a connection's record of one subscription stream. The
// reader creates it when it admits a subscriptions/listen, having taken
// the stream's slots; after the openSubscription message reaches the
// connection actor, pid belongs to that actor.
type subEntry struct {
	id      jsonrpc.ID
	call    *dispatch.Call
	started time.Time
	pid     *actor.PID

	// cancelled is set when the client cancels the stream: the writer
	// then drops the stream's frames still waiting.
	cancelled atomic.Bool
	// wakePending collapses wakes: one message reaches the actor however
	// often the source wakes it before it pulls again.
	wakePending atomic.Bool

	releaseOnce sync.Once
	release     func() // returns the slots and the id, whatever ended the stream
}

// free returns what the stream holds: its connection and executor slots
// and its id. It runs once, when the stream's actor stops, or when the
// stream never got one.
func (e *subEntry) free() { e.releaseOnce.Do(e.release) }

// Messages of a connection's subscription actor. All may arrive after it
// stopped: they come from the source's wake, the writer, and the
// connection finishing.
type (
	// subWake: the source has something for Next.
	subWake struct{}
	// subWritten: the writer's outcome for the frame the actor sent.
	subWritten struct{ err error }
	// completeSubscription: end the stream gracefully (end of input).
	completeSubscription struct{}
	// openSubscription: the reader admitted a subscriptions/listen.
	openSubscription struct{ entry *subEntry }
	// subscriptionDone: the stream wrote its last frame; its connection
	// stops it.
	subscriptionDone struct{ entry *subEntry }
)

func (*subWake) IgnoreDeadLetterLogging()              {}
func (*subWritten) IgnoreDeadLetterLogging()           {}
func (*completeSubscription) IgnoreDeadLetterLogging() {}
func (*openSubscription) IgnoreDeadLetterLogging()     {}
func (*subscriptionDone) IgnoreDeadLetterLogging()     {}

// connSubscriptionActor serves one subscriptions/listen stream on a
// byte-stream connection. It owns no goroutine: an idle stream is an
// actor waiting for a wake message. It writes the acknowledgement, then
// pulls one event at a time from the source and hands it to the writer,
// pulling the next only once the writer reports the previous one written
// (so a slow client slows the source, and the buffering happens in the
// source, bounded). The connection goes on reading and answering
// requests meanwhile.
//
// When the stream ends on the server's side (the source completed, input
// ended, the source failed) it writes the final response and then
// notifications/cancelled for the listen id, and reports to its
// connection, which stops it. Stopping it for any reason closes the
// source and returns the slots.
type connSubscriptionActor struct {
	s    *system
	rt   *dispatch.Runtime
	ctx  context.Context // the connection's: ends when it stops
	out  *outbox         // the connection writer's
	conn *actor.PID
	e    *subEntry

	stream     *dispatch.Stream
	self       *actor.PID
	writing    bool // a frame is with the writer
	lastSent   bool // the frame with the writer is the final response
	noticeSent bool // the notifications/cancelled is with the writer
	completing bool
	done       bool // reported to the connection
}

func (a *connSubscriptionActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{"id": a.e.id.String()}
	if a.stream != nil {
		attrs = a.stream.Attrs()
	}
	attrs["age"] = time.Since(a.e.started).Round(time.Millisecond).String()
	switch {
	case a.done:
		attrs["state"] = "done"
	case a.completing:
		attrs["state"] = "completing"
	case a.writing:
		attrs["state"] = "writing"
	default:
		attrs["state"] = "idle"
	}
	return tree.KindSubscription, attrs
}

func (a *connSubscriptionActor) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case *actor.Started:
		a.self = ac.Self()
		self, e, s := a.self, a.e, a.s
		wake := func() {
			if e.wakePending.CompareAndSwap(false, true) {
				s.send(self, &subWake{})
			}
		}
		st, out := a.rt.OpenStream(a.ctx, e.call, wake)
		if st == nil {
			// Nothing was opened: the error answers the request.
			a.write(out.Frame, true)
			a.noticeSent = true
			return
		}
		a.stream = st
		a.pump()
	case *subWake:
		a.e.wakePending.Store(false)
		a.pump()
	case *subWritten:
		a.writing = false
		switch {
		case m.err != nil || a.noticeSent:
			// The output failed (the connection is ending), or the last
			// frame is out.
			a.finish(ac)
		case a.lastSent:
			// The server ended the stream: on stdio it also says so with
			// notifications/cancelled naming the listen request.
			a.noticeSent = true
			a.write(mcpwire.EncodeListenCancelled(a.e.id, listenCancelReason), true)
		default:
			a.pump()
		}
	case *completeSubscription:
		if a.stream != nil && !a.completing {
			a.completing = true
			a.stream.Complete()
			a.pump()
		}
	case *actor.Stopping:
		if a.stream != nil {
			a.stream.Close()
		}
		a.e.free()
	}
}

// pump writes the stream's next frame, unless one is with the writer or
// the stream is idle (the source will wake it) or over.
func (a *connSubscriptionActor) pump() {
	if a.writing || a.lastSent || a.stream == nil {
		return
	}
	frame, last := a.stream.Next()
	if frame == nil {
		return // idle, or closed underneath: its connection is stopping it
	}
	a.write(frame, last)
}

// write hands one frame to the writer; the outcome comes back as
// subWritten. A frame of a stream the client cancelled is dropped.
func (a *connSubscriptionActor) write(frame []byte, last bool) {
	a.writing = true
	a.lastSent = a.lastSent || last
	s, self := a.s, a.self
	a.out.post(&writeFrame{frame: frame, cancelled: &a.e.cancelled, done: func(err error) {
		s.send(self, &subWritten{err: err})
	}})
}

// finish reports the stream over; the connection stops the actor.
func (a *connSubscriptionActor) finish(ac actor.Context) {
	if !a.done {
		a.done = true
		ac.Send(a.conn, &subscriptionDone{entry: a.e})
	}
}

// hostSubscriptionActor stands for one open subscription stream under an
// HTTP request actor. The transport's goroutine for the request drives
// the stream (it is there anyway, writing the response); the actor holds
// the stream's slot and its source, and releases both when it stops,
// whatever the reason: the stream completed, the client went away, or
// its owner stopped.
type hostSubscriptionActor struct {
	stream  *hostStream
	started time.Time
}

func (a *hostSubscriptionActor) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{}
	if d := a.stream.spec.Describe; d != nil {
		attrs = d()
	}
	attrs["age"] = time.Since(a.started).Round(time.Millisecond).String()
	return tree.KindSubscription, attrs
}

func (a *hostSubscriptionActor) Receive(ac actor.Context) {
	if _, ok := ac.Message().(*actor.Stopping); ok {
		a.stream.release()
	}
}
