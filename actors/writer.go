package actors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// DefaultWriteTimeout bounds one write to a connection's output.
const DefaultWriteTimeout = 5 * time.Second

// ErrWriteTimeout reports a write that did not return within the write
// timeout. It is terminal for the connection: bytes may already have
// reached the device, so nothing is retried and nothing more is written.
var ErrWriteTimeout = errors.New("actors: write timed out")

// maxBatchBytes bounds how many queued frames one write coalesces.
const maxBatchBytes = 256 << 10

// writeFrame asks the writer to write one frame (a newline is appended).
// ctx, when set, drops the frame if it has ended before the frame is
// written: nothing is sent for a cancelled request. ack, when set, receives
// the outcome of the write.
type writeFrame struct {
	frame []byte
	ctx   context.Context
	ack   chan<- error
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

// flush asks the writer to answer flushed once nothing is queued or in
// flight.
type flush struct{}

// flushed is the writer's answer to flush.
type flushed struct{}

// writerFailed reports a terminal output failure to the connection.
type writerFailed struct{ err error }

// writer is the only owner of a connection's io.Writer. It hands one batch
// at a time to a pump goroutine it owns and waits, bounded by the write
// timeout, for the pump to report back; the actor itself never blocks on
// I/O. Frames that arrive meanwhile are queued in the actor and written
// together next, each whole, so frames never interleave.
type writer struct {
	s       *System
	out     io.Writer
	timeout time.Duration

	pump     chan pumpJob
	inflight []*writeFrame
	pending  []*writeFrame
	gen      uint64
	timer    *time.Timer
	failed   error
	flushing bool
	written  int64
}

type pumpJob struct {
	gen uint64
	b   []byte
}

func newWriter(s *System, out io.Writer, timeout time.Duration) *writer {
	if timeout <= 0 {
		timeout = DefaultWriteTimeout
	}
	return &writer{s: s, out: out, timeout: timeout}
}

func (w *writer) describe() (Kind, map[string]string) {
	return KindWriter, map[string]string{
		"pending":  strconv.Itoa(len(w.pending)),
		"inflight": strconv.Itoa(len(w.inflight)),
		"written":  strconv.FormatInt(w.written, 10),
	}
}

func (w *writer) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		w.pump = make(chan pumpJob, 1)
		go runPump(w.s, c.Self(), w.out, w.pump)
	case *writeFrame:
		if w.failed != nil {
			ack(m, w.failed)
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
			w.fail(c, batch, fmt.Errorf("actors: write failed: %w", m.err))
			return
		}
		for _, f := range batch {
			ack(f, nil)
		}
		w.startWrite(c)
	case *writeTimeout:
		if m.gen != w.gen || w.inflight == nil {
			return
		}
		batch := w.inflight
		w.inflight = nil
		w.fail(c, batch, ErrWriteTimeout)
	case *flush:
		w.flushing = true
		w.maybeFlushed(c)
	case *actor.Stopping:
		if w.timer != nil {
			w.timer.Stop()
		}
		// The pump exits once its current write (if any) returns.
		close(w.pump)
		for _, f := range w.pending {
			ack(f, errWriterStopped)
		}
		for _, f := range w.inflight {
			ack(f, errWriterStopped)
		}
		w.pending, w.inflight = nil, nil
	}
}

var errWriterStopped = errors.New("actors: connection closed")

// startWrite hands the queued frames (up to maxBatchBytes) to the pump.
func (w *writer) startWrite(c actor.Context) {
	var buf []byte
	n := 0
	for n < len(w.pending) {
		f := w.pending[n]
		if f.ctx != nil && f.ctx.Err() != nil {
			ack(f, f.ctx.Err())
			w.pending[n] = nil
			n++
			continue
		}
		if len(buf) > 0 && len(buf)+len(f.frame)+1 > maxBatchBytes {
			break
		}
		buf = append(buf, f.frame...)
		buf = append(buf, '\n')
		w.inflight = append(w.inflight, f)
		n++
	}
	w.pending = w.pending[n:]
	if len(w.pending) == 0 {
		w.pending = nil
	}
	if len(buf) == 0 {
		w.inflight = nil
		w.maybeFlushed(c)
		return
	}
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

// fail makes the writer terminal: every queued frame fails, nothing is
// written again, and the connection is told.
func (w *writer) fail(c actor.Context, batch []*writeFrame, err error) {
	w.failed = err
	for _, f := range batch {
		ack(f, err)
	}
	for _, f := range w.pending {
		ack(f, err)
	}
	w.pending = nil
	c.Send(c.Parent(), &writerFailed{err: err})
}

func ack(f *writeFrame, err error) {
	if f != nil && f.ack != nil {
		f.ack <- err // buffered by the sender
	}
}

// runPump performs the writes. It is owned by the writer actor and exits
// when the writer closes jobs.
func runPump(s *System, writer *actor.PID, out io.Writer, jobs <-chan pumpJob) {
	for j := range jobs {
		_, err := out.Write(j.b)
		s.send(writer, &writeDone{gen: j.gen, err: err})
	}
}
