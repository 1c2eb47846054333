package testkit

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
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
		t.Fatalf("testkit: building %s needs the go command on PATH: %v", pkg, err)
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
		t.Fatalf("testkit: go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Process is a server running as a subprocess, driven over its standard
// input and output by a Client. Its standard error is captured.
type Process struct {
	Cmd    *exec.Cmd
	Client *Client

	in      io.WriteCloser
	stderr  lockedBuffer
	waitMu  sync.Mutex
	waited  bool
	exitErr error
}

// StartProcess starts bin with args and connects a Client to it. When the
// test ends the process's input is closed and, if it has not exited within
// DefaultTimeout, it is killed; every frame it wrote is checked as for
// StartStdio.
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
	p.in = in
	p.Cmd.Stderr = &p.stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("testkit: starting %s: %v", bin, err)
	}
	p.Client = NewClient(out, in)
	t.Cleanup(func() {
		p.CloseInput()
		if _, err := p.wait(DefaultTimeout); err != nil {
			t.Errorf("testkit: %v", err)
		}
		p.Client.CheckFrames(t)
	})
	return p
}

// Send writes one raw frame and a newline to the process.
func (p *Process) Send(t testing.TB, frame []byte) {
	t.Helper()
	if err := p.Client.Send(frame); err != nil {
		t.Fatalf("testkit: writing to the process: %v", err)
	}
}

// SendRaw writes bytes as they are (no newline added).
func (p *Process) SendRaw(t testing.TB, b []byte) {
	t.Helper()
	p.Client.writeMu.Lock()
	defer p.Client.writeMu.Unlock()
	if _, err := p.in.Write(b); err != nil {
		t.Fatalf("testkit: writing to the process: %v", err)
	}
}

// CloseInput closes the process's standard input (EOF).
func (p *Process) CloseInput() { _ = p.in.Close() }

// Stderr returns what the process has written to standard error so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Wait waits (at most DefaultTimeout) until the process has exited and its
// output has been read, and returns its exit status.
func (p *Process) Wait(t testing.TB) int {
	t.Helper()
	code, err := p.wait(DefaultTimeout)
	if err != nil {
		t.Fatalf("testkit: %v\nstderr:\n%s", err, p.Stderr())
	}
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
		case <-p.Client.readDone:
		case <-time.After(timeout):
			_ = p.Cmd.Process.Kill()
			<-p.Client.readDone
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

// lockedBuffer is a bytes.Buffer safe for one writer and many readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
