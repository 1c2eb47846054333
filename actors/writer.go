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

// maxBatchBytes bounds how many waiting frames one write coalesces.
const maxBatchBytes = 256 << 10

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
}

func (*writeFrame) IgnoreDeadLetterLogging() {}

// writeDone is the pump reporting a finished write.
type writeDone struct {
	gen uint64
	err error
}

func (*writeDone) IgnoreDeadLetterLogging() {}

// writeTimeout is the deadline timer of write gen.
type writeTimeout struct{ gen uint64 }

func (*writeTimeout) IgnoreDeadLetterLogging() {}

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

// writer is the only owner of a connection's io.Writer. One write is in
// flight at a time, performed by a pump goroutine the writer owns and
// watches with a timer; the actor itself never blocks on I/O.
//
// There is no writer queue in the sense of a buffer: every producer
// (request worker, reader, Notify caller) waits for its own frame's
// acknowledgement before producing another, so the frames waiting here are
// at most one per blocked producer, and the executor's bounds bound them.
// Waiting frames are written together by the next write, each whole and
// newline-terminated, so frames never interleave.
type writer struct {
	pumpExited chan struct{} // closed when the pump returns (may be nil)
	s          *system
	out        io.Writer
	timeout    time.Duration

	pump     chan pumpJob
	inflight []*writeFrame
	pending  []*writeFrame
	gen      uint64
	timer    *time.Timer
	failed   error
	closed   bool
	flushing bool
	written  int64

	// buf is the bytes of the write in flight; spareBuf and spareBatch
	// are those of the last successful write, reused by the next one (an
	// io.Writer does not retain what it was given).
	buf        []byte
	spareBuf   []byte
	spareBatch []*writeFrame
}

// maxSpareBytes bounds the buffer a writer keeps between writes.
const maxSpareBytes = 16 << 10

// spare returns the written buffer b emptied for the next write, or nil
// when it is larger than a writer keeps between writes.
func spare(b []byte) []byte {
	if cap(b) > maxSpareBytes {
		return nil
	}
	return b[:0]
}

type pumpJob struct {
	gen uint64
	b   []byte
}

func newWriter(s *system, out io.Writer, timeout time.Duration) *writer {
	if timeout <= 0 {
		timeout = defaultWriteTimeout
	}
	return &writer{s: s, out: out, timeout: timeout}
}

// pumpExited, when set before the writer starts, is closed once the pump
// goroutine has returned, so its owner can wait for a write in progress
// to finish before letting anyone close the output.
func (w *writer) withPumpExited(ch chan struct{}) *writer {
	w.pumpExited = ch
	return w
}

func (w *writer) describe() (tree.Kind, map[string]string) {
	attrs := map[string]string{
		"pending":  strconv.Itoa(len(w.pending)),
		"inflight": strconv.Itoa(len(w.inflight)),
		"written":  strconv.FormatInt(w.written, 10),
	}
	if w.failed != nil {
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
		w.pump = make(chan pumpJob, 1)
		go runPump(w.s, c.Self(), w.out, w.pump, w.pumpExited)
	case *writeFrame:
		if w.failed != nil { // mutation: writer-refuses-after-failure
			ack(m, &tree.DeliveryError{Kind: tree.ErrConnDown, Reason: w.failed})
			return
		}
		if w.closed { // mutation: writer-refuses-after-close
			ack(m, tree.ErrConnClosed)
			return
		}
		w.pending = append(w.pending, m)
		if w.inflight == nil {
			w.startWrite(c)
		}
	case *writeDone:
		if m.gen != w.gen || w.inflight == nil {
			return
		}
		w.timer.Stop()
		batch := w.inflight
		w.inflight = nil
		if m.err != nil {
			w.fail(c, batch, m.err)
			return
		}
		for i, f := range batch {
			ack(f, nil)
			batch[i] = nil
		}
		w.spareBatch, w.spareBuf, w.buf = batch[:0], spare(w.buf), nil
		if w.closed {
			w.pending = nil // refused already
			return
		}
		w.startWrite(c)
	case *writeTimeout:
		if m.gen != w.gen || w.inflight == nil {
			return
		}
		batch := w.inflight
		w.inflight = nil
		w.fail(c, batch, tree.ErrWriteTimeout)
	case *flush:
		w.flushing = true
		w.maybeFlushed(c)
	case *closeOutput:
		w.closed = true
		for _, f := range w.pending {
			ack(f, tree.ErrConnClosed)
		}
		w.pending = nil
	case *actor.Stopping:
		if w.timer != nil {
			w.timer.Stop()
		}
		// The pump exits once its current write (if any) returns.
		close(w.pump)
		for _, f := range w.pending {
			ack(f, tree.ErrConnClosed)
		}
		for _, f := range w.inflight {
			ack(f, tree.ErrConnClosed)
		}
		w.pending, w.inflight = nil, nil
	}
}

// startWrite hands the waiting frames (up to maxBatchBytes) to the pump,
// dropping those whose request was cancelled meanwhile.
func (w *writer) startWrite(c actor.Context) {
	buf, batch := w.spareBuf[:0], w.spareBatch[:0]
	w.spareBuf, w.spareBatch = nil, nil
	n := 0
	for n < len(w.pending) {
		f := w.pending[n]
		if f.ctx != nil && f.ctx.Err() != nil { // mutation: writer-drops-frame-of-ended-context
			ack(f, f.ctx.Err())
			w.pending[n] = nil
			n++
			continue
		}
		if f.cancelled != nil && f.cancelled.Load() { // mutation: writer-drops-cancelled-frame
			ack(f, errFrameDropped)
			w.pending[n] = nil
			n++
			continue
		}
		if len(buf) > 0 && len(buf)+len(f.frame)+1 > maxBatchBytes {
			break
		}
		buf = append(buf, f.frame...)
		buf = append(buf, '\n')
		batch = append(batch, f)
		w.pending[n] = nil
		n++
	}
	w.pending = w.pending[n:]
	if len(w.pending) == 0 {
		w.pending = nil
	}
	if len(buf) == 0 {
		w.spareBuf, w.spareBatch = buf, batch
		w.maybeFlushed(c)
		return
	}
	w.inflight, w.buf = batch, buf
	w.gen++
	w.written += int64(len(w.inflight))
	gen, self := w.gen, c.Self()
	w.pump <- pumpJob{gen: gen, b: buf} // never blocks: the pump is idle
	w.timer = time.AfterFunc(w.timeout, func() { w.s.send(self, &writeTimeout{gen: gen}) })
}

func (w *writer) maybeFlushed(c actor.Context) {
	if w.flushing && w.inflight == nil && len(w.pending) == 0 {
		w.flushing = false
		c.Send(c.Parent(), &flushed{})
	}
}

// fail makes the writer terminal: the frames of the failed write get
// ErrOutputFailed, those still waiting ErrConnDown, nothing is written
// again, and the connection is told.
func (w *writer) fail(c actor.Context, batch []*writeFrame, cause error) {
	w.failed = cause
	for _, f := range batch {
		ack(f, &tree.DeliveryError{Kind: tree.ErrOutputFailed, Reason: cause})
	}
	for _, f := range w.pending {
		ack(f, &tree.DeliveryError{Kind: tree.ErrConnDown, Reason: cause})
	}
	w.pending = nil
	c.Send(c.Parent(), &writerFailed{err: cause})
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
}

// runPump performs the writes. It is owned by the writer actor and exits
// when the writer closes jobs.
func runPump(s *system, writer *actor.PID, out io.Writer, jobs <-chan pumpJob, exited chan struct{}) {
	if exited != nil {
		defer close(exited)
	}
	for j := range jobs {
		n, err := out.Write(j.b)
		if err == nil && n < len(j.b) { // mutation: writer-fails-short-write
			// A writer that breaks io.Writer's contract took part of the
			// frames: the output is cut, as io.Copy and bufio say.
			err = io.ErrShortWrite
		}
		s.send(writer, &writeDone{gen: j.gen, err: err})
	}
}
