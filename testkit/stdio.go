// This file serves a Runtime over in-memory stdio pipes for a test.

package testkit

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

// StdioServer is a stdio transport served over in-memory pipes, with a
// Client connected to it and its own supervision tree.
type StdioServer struct {
	// Sup is the supervisor the connection runs under: its Tree shows
	// the connection, its writer and its requests.
	Sup *supervisor.Supervisor
	// Client reads every frame the server writes and sends requests.
	Client *Client
	// Cancel stops the server abruptly (as a signal would): Serve
	// returns without waiting for end of input.
	Cancel context.CancelFunc

	in   *io.PipeWriter
	out  *io.PipeReader
	errc chan error
}

// StartStdio serves rt over pipes under a new supervisor. The supervisor is
// closed, and the pipes too, when the test ends; the test's goroutines are
// all gone by then.
func StartStdio(t testing.TB, rt *dispatch.Runtime, opts ...stdio.Option) *StdioServer {
	t.Helper()
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	return startStdio(t, sup, true, rt, opts)
}

// StartStdioWith is StartStdio under an existing supervisor, which the
// caller closes.
func StartStdioWith(t testing.TB, sup *supervisor.Supervisor, rt *dispatch.Runtime, opts ...stdio.Option) *StdioServer {
	t.Helper()
	return startStdio(t, sup, false, rt, opts)
}

func startStdio(t testing.TB, sup *supervisor.Supervisor, ownsSup bool, rt *dispatch.Runtime, opts []stdio.Option) *StdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &StdioServer{Sup: sup, Cancel: cancel, in: inW, out: outR, errc: make(chan error, 1)}
	all := append([]stdio.Option{stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW)}, opts...)
	go func() {
		err := stdio.Serve(ctx, rt, all...)
		outW.Close() // the client reader sees the end of output
		s.errc <- err
	}()
	s.Client = NewClient(outR, inW)
	t.Cleanup(func() {
		s.Client.ExpectStop()
		cancel()
		inW.Close()
		inR.Close()
		select {
		case err := <-s.errc:
			s.errc <- err
		case <-time.After(DefaultTimeout):
			t.Error("testkit: stdio.Serve did not return")
		}
		outR.Close()
		<-s.Client.readDone
		if ownsSup {
			gctx, gcancel := context.WithTimeout(context.Background(), DefaultTimeout)
			defer gcancel()
			if err := sup.Close(gctx); err != nil {
				t.Errorf("testkit: closing supervisor: %v", err)
			}
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("testkit: %d unexpected dead letters", n)
		}
		s.Client.CheckFrames(t)
	})
	return s
}

// Send writes one raw frame and a newline to the server.
func (s *StdioServer) Send(t testing.TB, frame []byte) {
	t.Helper()
	if err := s.Client.Send(frame); err != nil {
		t.Fatalf("testkit: writing to server: %v", err)
	}
}

// SendRaw writes bytes as they are (no newline added).
func (s *StdioServer) SendRaw(t testing.TB, b []byte) {
	t.Helper()
	s.Client.writeMu.Lock()
	defer s.Client.writeMu.Unlock()
	if _, err := s.in.Write(b); err != nil {
		t.Fatalf("testkit: writing to server: %v", err)
	}
}

// CloseInput ends the server's input (EOF).
func (s *StdioServer) CloseInput() { s.in.Close() }

// Wait returns Serve's error once it has returned.
func (s *StdioServer) Wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-s.errc:
		s.errc <- err
		return err
	case <-time.After(DefaultTimeout):
		t.Fatal("testkit: stdio.Serve did not return")
		return nil
	}
}
