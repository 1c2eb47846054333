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

// readResult reads once in the background and returns the read's error,
// failing the test if the read has not returned within limit.
func readResult(t *testing.T, c *boundedConn, start func(), limit time.Duration) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		errc <- err
	}()
	if start != nil {
		start()
	}
	select {
	case err := <-errc:
		return err
	case <-time.After(limit):
		_ = c.Conn.Close() // ends the read, so the goroutine leaks nothing
		<-errc
		t.Fatalf("the read did not end within %v", limit)
		return nil
	}
}

func TestDeadlineSetBetweenReadsBindsTheNextRead(t *testing.T) {
	c := pipeConn(t)
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	err := readResult(t, c, nil, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error = %v, want the deadline exceeded", err)
	}
}

func TestDeadlineSetDuringAReadInterruptsIt(t *testing.T) {
	c := pipeConn(t)
	err := readResult(t, c, func() {
		// Wait (with a limit) until the read is under way, then set a
		// deadline in the past, as net/http does to stop its background
		// read.
		limit := time.Now().Add(5 * time.Second)
		for {
			c.mu.Lock()
			reading := c.reading
			c.mu.Unlock()
			if reading > 0 {
				break
			}
			if time.Now().After(limit) {
				t.Error("the read never started")
				break
			}
			time.Sleep(time.Millisecond)
		}
		_ = c.SetReadDeadline(time.Unix(1, 0))
	}, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error = %v, want the deadline exceeded", err)
	}
}

// writeResult writes once in the background and returns the write's
// error, failing the test if the write has not returned within limit.
func writeResult(t *testing.T, c *boundedConn, start func(), limit time.Duration) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write([]byte("x"))
		errc <- err
	}()
	if start != nil {
		start()
	}
	select {
	case err := <-errc:
		return err
	case <-time.After(limit):
		_ = c.Conn.Close()
		<-errc
		t.Fatalf("the write did not end within %v", limit)
		return nil
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
	if err := writeResult(t, c, nil, 5*time.Second); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write error = %v, want the deadline exceeded", err)
	}
}

func TestWriteDeadlineSetDuringAWriteInterruptsIt(t *testing.T) {
	c := pipeConn(t) // nobody reads the other end: a write blocks
	err := writeResult(t, c, func() {
		limit := time.Now().Add(5 * time.Second)
		for {
			c.mu.Lock()
			writing := c.writing
			c.mu.Unlock()
			if writing > 0 {
				break
			}
			if time.Now().After(limit) {
				t.Error("the write never started")
				break
			}
			time.Sleep(time.Millisecond)
		}
		_ = c.SetWriteDeadline(time.Unix(1, 0))
	}, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write error = %v, want the deadline exceeded", err)
	}
}
