package client

// A transport that spawns the server as a child process and speaks over its stdio.

import (
	"context"
	"errors"
	"fmt"
	"github.com/snodo-go/snodo/internal/clientconn"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// CommandTransport spawns a server process and speaks newline-delimited
// JSON over its standard input and output. Each Connect starts a new
// process; closing the connection stops it: its input is closed, then
// after GracePeriod it gets SIGTERM, then after another GracePeriod
// SIGKILL. Close returns only once the process has exited.
type CommandTransport struct {
	// Path is the program to run.
	Path string
	// Args are the program's arguments, without the program name.
	Args []string
	// Env is the process environment (nil: the current one).
	Env []string
	// Dir is the process's working directory (empty: the current one).
	Dir string
	// Stderr receives the server's standard error (nil: discarded). The
	// protocol lets servers write anything there; it is never an error.
	Stderr io.Writer
	// MaxLineBytes bounds one message from the server (default 16 MiB).
	MaxLineBytes int
	// WriteTimeout bounds one write to the server (default 5 s); a write
	// that blocks longer ends the connection.
	WriteTimeout time.Duration
	// GracePeriod is each step of stopping the server (default 2 s).
	GracePeriod time.Duration
}

// Connect implements Transport: it starts the process.
func (t *CommandTransport) Connect(_ context.Context, peer clientconn.Peer) (clientconn.Conn, error) {
	grace := t.GracePeriod
	if grace <= 0 {
		grace = defaultGracePeriod
	}
	writeTimeout := t.WriteTimeout
	if writeTimeout <= 0 {
		writeTimeout = defaultWriteTimeout
	}
	cmd := exec.Command(t.Path, t.Args...)
	cmd.Env, cmd.Dir, cmd.Stderr = t.Env, t.Dir, t.Stderr
	// Wait must not hang on a grandchild that inherited standard error.
	cmd.WaitDelay = grace
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("client: starting %s: %w", t.Path, err)
	}
	// The child holds its own copies of these ends.
	inR.Close()
	outW.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	lc := newLineConn(outR, inW, t.MaxLineBytes, writeTimeout, peer)
	lc.key = "command:" + t.Path + "\x00" + strings.Join(t.Args, "\x00")
	lc.stop = func() error {
		inW.Close() // end of input: the server should exit
		if !waitFor(exited, grace) {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			if !waitFor(exited, grace) {
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		outR.Close()
		<-lc.readDone
		var ee *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &ee) {
			return waitErr
		}
		return nil
	}
	go lc.readLoop()
	return lc, nil
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
