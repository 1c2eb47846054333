package actors

// The writer's outbox: the queue between a connection's producers and the
// pump goroutine that writes, and the pump itself.

import (
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// maxBatchBytes bounds how many waiting frames one write coalesces.
const maxBatchBytes = 256 << 10

// maxWaitingBytes bounds the responses a connection's workers leave
// waiting for the output without waiting themselves. A worker whose
// response finds more than this waiting waits for its own write, holding
// its execution slot: output that is slow slows the workers rather than
// growing memory.
const maxWaitingBytes = 256 << 10

// maxSpareBytes bounds the buffer a pump keeps between writes.
const maxSpareBytes = 16 << 10

// spare returns the written buffer b emptied for the next write, or nil
// when it is larger than a pump keeps between writes.
func spare(b []byte) []byte {
	if cap(b) > maxSpareBytes {
		return nil
	}
	return b[:0]
}

// outbox is a connection's output queue. Producers (the reader, the
// workers, streams, Notify callers) post frames to it under its lock; its
// pump goroutine takes what waits, writes it in one call and acknowledges
// each frame. A lock rather than the writer's mailbox carries the frames:
// a mailbox message per frame and another per write, each waking a
// goroutine, cost more than the protocol work of a small request (see
// docs/PERFORMANCE.md). The writer actor owns the outbox: it starts and
// stops the pump, and answers flush, close and inspection.
//
// One write is in flight at a time. A timer bounds it: a write still
// running after the timeout fails the outbox, and the pump, whenever that
// write returns, writes nothing more.
type outbox struct {
	s       *system
	out     io.Writer
	timeout time.Duration
	// parent is told flushed and writerFailed; set by the writer before
	// the pump starts.
	parent *actor.PID
	exited chan struct{} // closed when the pump returns (may be nil)
	wake   chan struct{} // one token: the pump has frames to take
	quit   chan struct{} // closed when the writer stops
	timer  *time.Timer   // the deadline of the write in flight

	mu       sync.Mutex
	pending  []*writeFrame
	waiting  int           // bytes of pending, newlines included
	inflight []*writeFrame // the frames of the write in flight
	deadline time.Time     // of the write in flight
	gen      uint64        // counts writes, so a late answer is told apart
	busy     bool          // the pump has been woken and has not gone idle
	failed   error
	closed   bool // frames are refused from now on
	stopped  bool // the writer has stopped: the pump exits
	flushing bool // the parent waits for flushed
	written  int64
}

func newOutbox(s *system, out io.Writer, timeout time.Duration) *outbox {
	if timeout <= 0 {
		timeout = defaultWriteTimeout
	}
	o := &outbox{s: s, out: out, timeout: timeout, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	o.timer = time.AfterFunc(time.Hour, o.expire)
	o.timer.Stop()
	return o
}

// refusalLocked is the error a frame posted now is refused with, or nil.
func (o *outbox) refusalLocked() error {
	switch {
	case o.failed != nil: // mutation: writer-refuses-after-failure
		return &tree.DeliveryError{Kind: tree.ErrConnDown, Reason: o.failed}
	case o.closed: // mutation: writer-refuses-after-close
		return tree.ErrConnClosed
	}
	return nil
}

// post queues f for writing, after the frames already waiting, or
// acknowledges it at once with the reason it is refused.
func (o *outbox) post(f *writeFrame) {
	o.mu.Lock()
	if err := o.refusalLocked(); err != nil {
		o.mu.Unlock()
		ack(f, err)
		return
	}
	o.queueLocked(f)
	o.mu.Unlock()
}

// postResponse queues a worker's response, as post does. It returns nil,
// or, when more than maxWaitingBytes were already waiting, the channel
// that acknowledges the frame, for the worker to wait on.
func (o *outbox) postResponse(f *writeFrame) chan error {
	o.mu.Lock()
	if err := o.refusalLocked(); err != nil {
		o.mu.Unlock()
		ack(f, err)
		return nil
	}
	var wait chan error
	if o.waiting > maxWaitingBytes { // mutation: outbox-bounds-waiting-responses
		wait = ackChans.Get().(chan error)
		f.ack = wait
	}
	o.queueLocked(f)
	o.mu.Unlock()
	return wait
}

func (o *outbox) queueLocked(f *writeFrame) {
	o.pending = append(o.pending, f)
	o.waiting += len(f.frame) + 1
	if !o.busy {
		o.busy = true
		o.wake <- struct{}{} // never blocks: one token while busy
	}
}

// ackChans are acknowledgement channels reused once their one
// acknowledgement has been received.
var ackChans = sync.Pool{New: func() any { return make(chan error, 1) }}

// run is the pump goroutine: it writes until the writer stops or the
// output fails.
func (o *outbox) run() {
	if o.exited != nil {
		defer close(o.exited)
	}
	var (
		buf   []byte
		batch []*writeFrame
		gen   uint64
	)
	for {
		select {
		case <-o.wake:
		case <-o.quit:
			return
		}
		for {
			runtime.Gosched()
			buf, batch, gen = o.take(buf[:0], batch[:0])
			if len(batch) == 0 {
				break // idle until woken
			}
			n, err := o.out.Write(buf)
			if err == nil && n < len(buf) { // mutation: writer-fails-short-write
				// A writer that breaks io.Writer's contract took part of
				// the frames: the output is cut, as io.Copy and bufio say.
				err = io.ErrShortWrite
			}
			if !o.wrote(gen, batch, err) {
				return
			}
			clear(batch)
			buf = spare(buf)
		}
	}
}

// take moves the waiting frames (up to maxBatchBytes) into buf and batch
// for one write, dropping those whose request was cancelled or whose
// context ended meanwhile. With nothing to write it marks the pump idle.
func (o *outbox) take(buf []byte, batch []*writeFrame) ([]byte, []*writeFrame, uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped || o.failed != nil {
		o.busy = false
		return buf, batch, 0
	}
	n := 0
	for n < len(o.pending) {
		f := o.pending[n]
		if f.ctx != nil && f.ctx.Err() != nil { // mutation: writer-drops-frame-of-ended-context
			o.dropLocked(n, f.ctx.Err())
			n++
			continue
		}
		if f.cancelled != nil && f.cancelled.Load() { // mutation: writer-drops-cancelled-frame
			o.dropLocked(n, errFrameDropped)
			n++
			continue
		}
		if len(buf) > 0 && len(buf)+len(f.frame)+1 > maxBatchBytes {
			break
		}
		buf = append(buf, f.frame...)
		buf = append(buf, '\n')
		batch = append(batch, f)
		o.waiting -= len(f.frame) + 1
		o.pending[n] = nil
		n++
	}
	rest := copy(o.pending, o.pending[n:])
	clear(o.pending[rest:])
	o.pending = o.pending[:rest]
	if len(batch) == 0 {
		o.busy = false
		o.flushedLocked()
		return buf, batch, 0
	}
	o.inflight = batch
	o.gen++
	o.written += int64(len(batch))
	o.deadline = time.Now().Add(o.timeout)
	o.timer.Reset(o.timeout)
	return buf, batch, o.gen
}

// dropLocked acknowledges pending frame n, not written, with err.
func (o *outbox) dropLocked(n int, err error) {
	f := o.pending[n]
	o.pending[n] = nil
	o.waiting -= len(f.frame) + 1
	ack(f, err)
}

// wrote ends write gen: its frames are acknowledged, or the outbox fails
// with err. It reports whether the pump goes on: not once the outbox has
// failed (this write's error, or its timeout) or the writer has stopped.
func (o *outbox) wrote(gen uint64, batch []*writeFrame, err error) bool {
	o.mu.Lock()
	if gen != o.gen || o.inflight == nil {
		// Timed out, or the writer stopped: its frames were answered then.
		o.mu.Unlock()
		return false
	}
	o.timer.Stop()
	o.inflight = nil
	if err != nil {
		o.failLocked(batch, err)
		o.mu.Unlock()
		return false
	}
	o.mu.Unlock()
	for _, f := range batch {
		ack(f, nil)
	}
	return true
}

// expire is the write timer's callback. A callback already running when
// the timer was re-armed for a later write finds that write's deadline
// still ahead and leaves it alone.
func (o *outbox) expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.inflight == nil || time.Now().Before(o.deadline) {
		return
	}
	batch := o.inflight
	o.inflight = nil
	o.failLocked(batch, tree.ErrWriteTimeout)
}

// failLocked makes the outbox terminal: the frames of the failed write get
// ErrOutputFailed, those still waiting ErrConnDown, nothing is written
// again, and the parent is told.
func (o *outbox) failLocked(batch []*writeFrame, cause error) {
	o.failed = cause
	for _, f := range batch {
		ack(f, &tree.DeliveryError{Kind: tree.ErrOutputFailed, Reason: cause})
	}
	o.refuseLocked(&tree.DeliveryError{Kind: tree.ErrConnDown, Reason: cause})
	o.s.send(o.parent, &writerFailed{err: cause})
}

// refuseLocked acknowledges every waiting frame with err, unwritten.
func (o *outbox) refuseLocked(err error) {
	for _, f := range o.pending {
		ack(f, err)
	}
	clear(o.pending)
	o.pending, o.waiting = o.pending[:0], 0
}

// flush asks for flushed to be sent to the parent once nothing waits or
// is in flight.
func (o *outbox) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushing = true
	o.flushedLocked()
}

func (o *outbox) flushedLocked() {
	if o.flushing && o.inflight == nil && len(o.pending) == 0 && o.failed == nil {
		o.flushing = false
		o.s.send(o.parent, &flushed{})
	}
}

// close refuses the frames waiting and any posted from now on. A write in
// flight completes.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.refuseLocked(tree.ErrConnClosed)
}

// stop answers every frame not yet acknowledged with ErrConnClosed and
// lets the pump exit once its write in flight, if any, returns.
func (o *outbox) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	o.stopped, o.closed = true, true
	o.timer.Stop()
	o.refuseLocked(tree.ErrConnClosed)
	for _, f := range o.inflight {
		ack(f, tree.ErrConnClosed)
	}
	o.inflight = nil
	close(o.quit)
}

// counts returns the frames waiting and in flight, the frames written,
// and the failure, for inspection.
func (o *outbox) counts() (pending, inflight int, written int64, failed error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending), len(o.inflight), o.written, o.failed
}
