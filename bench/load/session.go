package load

import (
	"fmt"
	"io"
	"time"
)

// session is an asynchronous stdio conversation: writes are queued to a
// writer goroutine (so a server that stops reading cannot block the
// driver), and every frame read is handed to onFrame with its arrival
// time.
type session struct {
	out   chan []byte
	rdone chan error
}

func startSession(t *Target, onFrame func(Frame, time.Time)) *session {
	s := &session{out: make(chan []byte, 1024), rdone: make(chan error, 1)}
	go func() {
		for b := range s.out {
			if _, err := t.Stdin.Write(b); err != nil {
				// The server is gone; the reader reports it.
				for range s.out {
				}
				return
			}
		}
	}()
	go func() {
		sc := lineReader(t.Stdout)
		for sc.Scan() {
			f, err := ParseFrame(sc.Bytes())
			if err != nil {
				s.rdone <- fmt.Errorf("load: unparsable frame: %w", err)
				// Keep draining so the server never blocks on its output.
				_, _ = io.Copy(io.Discard, t.Stdout)
				return
			}
			onFrame(f, time.Now())
		}
		s.rdone <- sc.Err()
	}()
	return s
}

// send queues one write.
func (s *session) send(b []byte) { s.out <- b }

// closeWrites ends the writer goroutine once the queued writes are done
// (or the server has gone).
func (s *session) closeWrites() { close(s.out) }

// readerDone is closed with the reader's end: EOF (nil) or an error.
func (s *session) readerDone() <-chan error { return s.rdone }
