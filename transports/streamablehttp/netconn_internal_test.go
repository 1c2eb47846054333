package streamablehttp

// The listener connection's deadlines: a read deadline recorded between
// reads binds the next read, one set during a read interrupts it; a write
// deadline nearer than the one the connection has replaces it, and one
// set during a write interrupts it.

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// pipeConn is a boundedConn over one end of a pipe whose other end never
// writes, with no per-read timeout.
func pipeConn(t *testing.T) *boundedConn {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &boundedConn{Conn: a, l: newBoundedListener(nil, 1, 0)}
}

// opResult runs op (one read or write of c) in the background, calls
// start, and returns op's error, failing the test if op has not returned
// within limit.
func opResult(t *testing.T, c *boundedConn, op func() error, start func(), limit time.Duration) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- op() }()
	if start != nil {
		start()
	}
	select {
	case err := <-errc:
		return err
	case <-time.After(limit):
		_ = c.Conn.Close() // ends op, so the goroutine leaks nothing
		<-errc
		t.Fatalf("the read or write did not end within %v", limit)
		return nil
	}
}

func readOnce(c *boundedConn) func() error {
	return func() error { _, err := c.Read(make([]byte, 1)); return err }
}

func writeOnce(c *boundedConn) func() error {
	return func() error { _, err := c.Write([]byte("x")); return err }
}

// waitUnderWay waits (with a limit) until *count, read under c.mu, says a
// read or write is under way.
func waitUnderWay(t *testing.T, c *boundedConn, count *int) {
	t.Helper()
	limit := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		n := *count
		c.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(limit) {
			t.Error("the read or write never started")
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func TestDeadlineSetBetweenReadsBindsTheNextRead(t *testing.T) {
	c := pipeConn(t)
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	err := opResult(t, c, readOnce(c), nil, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error = %v, want the deadline exceeded", err)
	}
}

func TestDeadlineSetDuringAReadInterruptsIt(t *testing.T) {
	c := pipeConn(t)
	err := opResult(t, c, readOnce(c), func() {
		// Once the read is under way, a deadline in the past, as net/http
		// sets to stop its background read.
		waitUnderWay(t, c, &c.reading)
		_ = c.SetReadDeadline(time.Unix(1, 0))
	}, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error = %v, want the deadline exceeded", err)
	}
}

func TestNearerWriteDeadlineReplacesAFartherOne(t *testing.T) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	c := &boundedConn{Conn: a, l: newBoundedListener(nil, 1, 0)}
	// The first write, read by the other end, gives the connection a
	// deadline an hour away.
	go func() { _, _ = b.Read(make([]byte, 1)) }()
	_ = c.SetWriteDeadline(time.Now().Add(time.Hour))
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	// Nobody reads any more: the next write blocks until its deadline.
	_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	if err := opResult(t, c, writeOnce(c), nil, 5*time.Second); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write error = %v, want the deadline exceeded", err)
	}
}

func TestWriteDeadlineSetDuringAWriteInterruptsIt(t *testing.T) {
	c := pipeConn(t) // nobody reads the other end: a write blocks
	err := opResult(t, c, writeOnce(c), func() {
		waitUnderWay(t, c, &c.writing)
		_ = c.SetWriteDeadline(time.Unix(1, 0))
	}, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write error = %v, want the deadline exceeded", err)
	}
}
