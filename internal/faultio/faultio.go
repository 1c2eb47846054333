// Package faultio wraps readers, writers and network connections to
// inject the faults an I/O edge meets: reads and writes that move fewer
// bytes than asked, stalls (a device with nothing to read, or not ready
// to take more, as EAGAIN says to a non-blocking caller), a device that
// fails after a number of bytes, and a read that returns data together
// with an error, as io.Reader allows. The transports' tests use it to
// check that each fault has its specified outcome.
package faultio

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Reader injects faults into the reads from R.
type Reader struct {
	// R is the reader wrapped.
	R io.Reader
	// MaxRead bounds the bytes one Read returns: short reads. Zero means
	// no bound.
	MaxRead int
	// Stall, when set, runs before each Read, which waits for it to
	// return.
	Stall func()
	// Err, when set, is the error every Read returns once FailAfter bytes
	// have been read.
	Err error
	// FailAfter is the number of bytes read before Err.
	FailAfter int64
	// WithData makes the Read that reaches FailAfter return its bytes
	// together with Err, instead of returning them and failing on the
	// next call.
	WithData bool

	n atomic.Int64
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.Stall != nil {
		r.Stall()
	}
	read := r.n.Load()
	if r.Err != nil && read >= r.FailAfter {
		return 0, r.Err
	}
	if r.MaxRead > 0 && len(p) > r.MaxRead {
		p = p[:r.MaxRead]
	}
	if r.Err != nil && int64(len(p)) > r.FailAfter-read {
		p = p[:r.FailAfter-read]
	}
	n, err := r.R.Read(p)
	read = r.n.Add(int64(n))
	if err == nil && r.Err != nil && r.WithData && read >= r.FailAfter {
		err = r.Err
	}
	return n, err
}

// BytesRead returns the number of bytes read so far.
func (r *Reader) BytesRead() int64 { return r.n.Load() }

// Writer injects faults into the writes to W.
type Writer struct {
	// W is the writer wrapped.
	W io.Writer
	// MaxWrite bounds the bytes one Write passes on. A longer Write passes
	// MaxWrite bytes and returns io.ErrShortWrite, as a device that took
	// only part of it would; zero means no bound.
	MaxWrite int
	// ShortWithoutError makes a Write cut by MaxWrite return the short
	// count with a nil error instead, breaking io.Writer's contract as
	// some writers do.
	ShortWithoutError bool
	// Stall, when set, runs before each Write, which waits for it to
	// return.
	Stall func()
	// Err, when set, is the error a Write returns once FailAfter bytes
	// have been written: the Write that crosses the bound passes the
	// bytes up to it and returns Err, and every later one returns Err at
	// once.
	Err error
	// FailAfter is the number of bytes written before Err.
	FailAfter int64

	writes atomic.Int64 // Write calls, counted as they begin

	mu      sync.Mutex
	n       int64
	failed  bool
	afterBy int // Write calls after the first that failed
}

// Write implements io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.writes.Add(1)
	if w.Stall != nil {
		w.Stall()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		w.afterBy++
	}
	if w.Err != nil && w.n >= w.FailAfter {
		w.failed = true
		return 0, w.Err
	}
	q := p
	if w.MaxWrite > 0 && len(q) > w.MaxWrite {
		q = q[:w.MaxWrite]
	}
	if w.Err != nil && int64(len(q)) > w.FailAfter-w.n {
		q = q[:w.FailAfter-w.n]
	}
	n, err := w.W.Write(q)
	w.n += int64(n)
	switch {
	case err != nil:
		w.failed = true
		return n, err
	case w.Err != nil && w.n >= w.FailAfter && n < len(p):
		w.failed = true
		return n, w.Err
	case n < len(p) && !w.ShortWithoutError:
		w.failed = true
		return n, io.ErrShortWrite
	}
	return n, nil
}

// BytesWritten returns the number of bytes passed on so far.
func (w *Writer) BytesWritten() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Writes returns the number of Write calls begun so far, stalled ones
// included.
func (w *Writer) Writes() int64 { return w.writes.Load() }

// CallsAfterFailure returns how many Writes came after the first one
// that failed (or was cut short): a caller that treats a failed write as
// terminal makes none.
func (w *Writer) CallsAfterFailure() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.afterBy
}

// Conn is a net.Conn whose reads and writes go through a Reader and a
// Writer, whose R and W it sets to the connection.
type Conn struct {
	net.Conn
	r *Reader
	w *Writer
}

// NewConn wraps c. r and w may be nil (no faults on that side); their R
// and W are set to c.
func NewConn(c net.Conn, r *Reader, w *Writer) *Conn {
	if r == nil {
		r = &Reader{}
	}
	if w == nil {
		w = &Writer{}
	}
	r.R, w.W = c, c
	return &Conn{Conn: c, r: r, w: w}
}

// Read implements net.Conn.
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Write implements net.Conn.
func (c *Conn) Write(p []byte) (int, error) { return c.w.Write(p) }

// Listener wraps each connection its inner listener accepts.
type Listener struct {
	net.Listener
	// Wrap returns the connection to hand out in place of c.
	Wrap func(c net.Conn) net.Conn
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.Wrap(c), nil
}
