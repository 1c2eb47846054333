// This file builds a server binary and drives it as a subprocess.

package testfixture

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/testkit"
)

// BuildBinary builds the main package pkg (an import path, such as
// "github.com/snodo-go/snodo/examples/quickstart") into a temporary
// directory of t and returns the binary's path. When the test runs with
// the race detector, the binary is built with it too, so a race in the
// subprocess makes it exit with status 66.
func BuildBinary(t testing.TB, pkg string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("testfixture: building %s needs the go command on PATH: %v", pkg, err)
	}
	bin := filepath.Join(t.TempDir(), path.Base(pkg))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testfixture: go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Process is a server running as a subprocess, driven over its standard
// input and output by a testkit.Client. Its standard error is captured.
type Process struct {
	// Cmd is the running command.
	Cmd *exec.Cmd
	// Client reads the process's standard output and writes to its
	// standard input.
	Client *testkit.Client

	in      *lockedWriter // the process's standard input, shared with Client
	outDone chan struct{} // closed when the process's output has ended
	stderr  watchedBuffer
	waitMu  sync.Mutex
	waited  bool
	exitErr error
}

// StartProcess starts bin with args and connects a testkit.Client to it.
// When the test ends the process's input is closed and, if it has not
// exited within testkit.DefaultTimeout, it is killed; every frame it wrote
// is checked as testkit.StartStdio checks them.
func StartProcess(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(bin, args...)}
	in, err := p.Cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = &lockedWriter{w: in}
	p.outDone = make(chan struct{})
	p.Cmd.Stderr = &p.stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("testfixture: starting %s: %v", bin, err)
	}
	p.Client = testkit.NewClient(&endReader{r: out, done: p.outDone}, p.in)
	t.Cleanup(func() {
		p.CloseInput()
		if _, err := p.wait(testkit.DefaultTimeout); err != nil {
			t.Errorf("testfixture: %v", err)
		}
		p.Client.WaitClosed(t) // the reader has handled the end of output
		p.Client.CheckFrames(t)
	})
	return p
}

// Send writes one raw frame and a newline to the process.
func (p *Process) Send(t testing.TB, frame []byte) {
	t.Helper()
	if err := p.Client.Send(frame); err != nil {
		t.Fatalf("testfixture: writing to the process: %v", err)
	}
}

// SendRaw writes bytes as they are (no newline added).
func (p *Process) SendRaw(t testing.TB, b []byte) {
	t.Helper()
	if _, err := p.in.Write(b); err != nil {
		t.Fatalf("testfixture: writing to the process: %v", err)
	}
}

// CloseInput closes the process's standard input (EOF).
func (p *Process) CloseInput() { _ = p.in.Close() }

// Stderr returns what the process has written to standard error so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// WaitStderr waits until the process's standard error contains substr,
// woken by each write, and fails the test if it does not within
// testkit.DefaultTimeout.
func (p *Process) WaitStderr(t testing.TB, substr string) {
	t.Helper()
	deadline := time.NewTimer(testkit.DefaultTimeout)
	defer deadline.Stop()
	for {
		text, changed := p.stderr.snapshot()
		if strings.Contains(text, substr) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("testfixture: standard error did not show %q within %v:\n%s", substr, testkit.DefaultTimeout, p.Stderr())
		}
	}
}

// Wait waits (at most testkit.DefaultTimeout) until the process has
// exited and its output has been read, and returns its exit status.
func (p *Process) Wait(t testing.TB) int {
	t.Helper()
	code, err := p.wait(testkit.DefaultTimeout)
	if err != nil {
		t.Fatalf("testfixture: %v\nstderr:\n%s", err, p.Stderr())
	}
	p.Client.WaitClosed(t) // the reader has handled the end of output
	return code
}

// wait reads the output to its end before calling Cmd.Wait, which closes
// the pipe; a process still running after timeout is killed.
func (p *Process) wait(timeout time.Duration) (int, error) {
	p.waitMu.Lock()
	defer p.waitMu.Unlock()
	var err error
	if !p.waited {
		p.waited = true
		select {
		case <-p.outDone:
		case <-time.After(timeout):
			_ = p.Cmd.Process.Kill()
			<-p.outDone
			err = errors.New("the process did not exit in time; killed it")
		}
		p.exitErr = p.Cmd.Wait()
	}
	var ee *exec.ExitError
	switch {
	case err != nil:
		return -1, err
	case p.exitErr == nil:
		return 0, nil
	case errors.As(p.exitErr, &ee):
		return ee.ExitCode(), nil
	}
	return -1, p.exitErr
}

// watchedBuffer is a process's standard error: a buffer whose every write
// closes the channel handed out by snapshot, so a reader waits for the next
// write instead of polling.
type watchedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
	return w.b.Write(p)
}

func (w *watchedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// snapshot returns the text so far and a channel closed by the next write.
func (w *watchedBuffer) snapshot() (string, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	return w.b.String(), w.changed
}

// lockedWriter serializes the writes of the Client and of SendRaw, so a
// raw write never lands inside a frame.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// endReader closes done once r has returned an error (the end of the
// process's output) to the Client's reader.
type endReader struct {
	r    io.Reader
	done chan struct{}
	once sync.Once
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.done) })
	}
	return n, err
}
