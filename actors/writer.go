package actors

// The writer actor: the sole owner of a connection's output, and its pump
// goroutine.

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// defaultWriteTimeout bounds one write to a connection's output when its
// transport gives no bound.
const defaultWriteTimeout = 5 * time.Second

// errFrameDropped acknowledges a frame dropped because its request was
// cancelled before the frame's turn came.
var errFrameDropped = errors.New("actors: frame dropped: its request was cancelled")

// writeFrame asks the writer to write one frame (a newline is appended).
// The frame is dropped, unwritten, if ctx has ended or cancelled is set by
// the time its turn comes: nothing is sent for a cancelled request. ack,
// when set, receives the outcome of the write; it must be buffered. done,
// when set, is called with the outcome instead, on the writer's
// goroutine: an actor producer (a subscription stream) passes one that
// sends itself a message, so it never blocks waiting.
type writeFrame struct {
	frame     []byte
	ctx       context.Context
	cancelled *atomic.Bool
	ack       chan<- error
	done      func(error)
	// owner, when set, hears the outcome as done would, without a
	// closure: a request's response frame is part of its record.
	owner frameOwner
}

// A frameOwner hears the outcome of its frame's write, on the goroutine
// that decided it. It must not block.
type frameOwner interface{ frameWritten(err error) }

func (*writeFrame) IgnoreDeadLetterLogging() {}

// flush asks the writer to answer flushed once nothing waits or is in
// flight.
type flush struct{}

// flushed is the writer's answer to flush.
type flushed struct{}

// writerFailed reports a terminal output failure to the connection.
type writerFailed struct{ err error }

// closeOutput tells the writer its connection is ending: frames waiting
// or arriving from now on are refused, unwritten. A write in flight
// completes.
type closeOutput struct{}

// writer is the only owner of a connection's output. Its outbox carries
// the frames to a pump goroutine the writer starts and stops; the actor
// itself never blocks on I/O and keeps no frames in its mailbox on the
// fast path (producers post to the outbox directly; a writeFrame sent to
// the actor is posted the same way).
//
// The frames waiting are bounded: every producer but a worker waits for
// its own frame's acknowledgement before producing another, and a worker
// waits too once more than maxWaitingBytes of responses wait. Waiting
// frames are written together by the next write, each whole and
// newline-terminated, so frames never interleave.
type writer struct {
	s   *system
	box *outbox
}

func newWriter(s *system, out io.Writer, timeout time.Duration) *writer {
	return &writer{s: s, box: newOutbox(s, out, timeout)}
}

// withPumpExited, when set before the writer starts, is closed once the
// pump goroutine has returned, so its owner can wait for a write in
// progress to finish before letting anyone close the output.
func (w *writer) withPumpExited(ch chan struct{}) *writer {
	w.box.exited = ch
	return w
}

func (w *writer) describe() (tree.Kind, map[string]string) {
	pending, inflight, written, failed := w.box.counts()
	attrs := map[string]string{
		"pending":  strconv.Itoa(pending),
		"inflight": strconv.Itoa(inflight),
		"written":  strconv.FormatInt(written, 10),
	}
	if failed != nil {
		attrs["state"] = "failed"
	}
	return tree.KindWriter, attrs
}

func (w *writer) Receive(c actor.Context) {
	// Built with busyProps: no middleware answers inspection for it.
	defer w.s.logPanic(c)
	if w.s.leafReceive(c, w) {
		return
	}
	switch m := c.Message().(type) {
	case *actor.Started:
		w.box.parent = c.Parent()
		go w.box.run()
	case *writeFrame:
		w.box.post(m)
	case *flush:
		w.box.flush()
	case *closeOutput:
		w.box.close()
	case *actor.Stopping:
		// The pump exits once its current write (if any) returns.
		w.box.stop()
	}
}

func ack(f *writeFrame, err error) {
	if f == nil {
		return
	}
	if f.ack != nil {
		f.ack <- err // buffered by the sender
	}
	if f.done != nil {
		f.done(err) // must not block
	}
	if f.owner != nil {
		f.owner.frameWritten(err)
	}
}
