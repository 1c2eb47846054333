package stdio_test

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// examplePkg is the server these tests run as a subprocess.
const examplePkg = "github.com/snodo-go/snodo/examples/04_stdio_concurrency"

func call(id any, tool string, args map[string]any) []byte {
	if args == nil {
		args = map[string]any{}
	}
	return testkit.Request(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

func answered(c *testkit.Client, id string) bool {
	for _, f := range c.Frames() {
		if f.Method == "" && string(f.ID) == id {
			return true
		}
	}
	return false
}

func TestAgainstASubprocess(t *testing.T) {
	bin := testfixture.BuildBinary(t, examplePkg)

	t.Run("fast call overtakes slow one", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		p.Send(t, call("slow", "slow", nil))
		fast := p.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "fast"}})
		if fast.Error != nil || answered(p.Client, `"slow"`) {
			t.Fatalf("fast call %s; slow answered already: %v", fast.Raw, answered(p.Client, `"slow"`))
		}
		p.Client.Call(t, "tools/call", map[string]any{"name": "release"})
		p.Client.AwaitResponse(t, `"slow"`)
		p.CloseInput()
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit status %d\n%s", code, p.Stderr())
		}
	})

	t.Run("cancelled call gets no late response", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve", "-log-level", "debug")
		p.Send(t, call("doomed", "slow", nil))
		// Cancel once the handler runs (it logs as it starts): a call
		// cancelled while still queued never runs at all.
		p.WaitStderr(t, "slow call waiting")
		p.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "doomed"}))
		// The handler sees its cancellation (it logs it, then returns a
		// result, which must not be written).
		p.WaitStderr(t, "slow call cancelled")
		if r := p.Client.Call(t, "tools/call", map[string]any{"name": "cancellations"}); !strings.Contains(string(r.Raw), `"text":"1"`) {
			t.Fatalf("cancellations: %s, want 1", r.Raw)
		}
		p.Client.Call(t, "tools/call", map[string]any{"name": "release"})
		p.CloseInput()
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit status %d\n%s", code, p.Stderr())
		}
		if answered(p.Client, `"doomed"`) {
			t.Fatal("a response was written for the cancelled call")
		}
	})

	t.Run("end of input drains in-flight calls", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		p.Send(t, call("sleeper", "sleep", map[string]any{"ms": 300}))
		p.Send(t, call("quick", "echo", map[string]any{"text": "q"}))
		p.CloseInput()
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit status %d\n%s", code, p.Stderr())
		}
		if !answered(p.Client, `"sleeper"`) || !answered(p.Client, `"quick"`) {
			t.Fatalf("responses after EOF: %d frames", len(p.Client.Frames()))
		}
	})

	t.Run("oversize line then a normal line", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		// 2,000,000 bytes plus the newline: one over the default limit.
		p.SendRaw(t, append(bytes.Repeat([]byte("x"), 2_000_000), '\n'))
		r := p.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "after"}})
		if r.Error != nil {
			t.Fatalf("the line after: %s", r.Raw)
		}
		first := p.Client.Frames()[0]
		if first.ID != nil || first.Error == nil || first.Error.Code != -32600 {
			t.Fatalf("the oversize line: %s", first.Raw)
		}
	})

	t.Run("leading byte order mark", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		p.SendRaw(t, append([]byte("\xEF\xBB\xBF"), append(testkit.Request(1, "server/discover", nil), '\n')...))
		if r := p.Client.AwaitResponse(t, "1"); r.Error != nil {
			t.Fatalf("after a BOM: %s", r.Raw)
		}
	})

	t.Run("non-ASCII output is escaped", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		r := p.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "h\u00e9llo \u2603 \U0001F600"}})
		for _, want := range []string{`h\u00e9llo`, `\u2603`, `\ud83d\ude00`} {
			if !strings.Contains(string(r.Raw), want) {
				t.Errorf("response lacks %s: %s", want, r.Raw)
			}
		}
		// The client reports any non-ASCII byte on stdout when the test ends.
	})

	t.Run("application notification by name", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve")
		r := p.Client.Call(t, "tools/call", map[string]any{"name": "announce", "arguments": map[string]any{"text": "caf\u00e9"}})
		if r.Error != nil {
			t.Fatal(string(r.Raw))
		}
		frames := p.Client.Frames()
		if len(frames) != 2 || string(frames[0].Raw) != `{"jsonrpc":"2.0","method":"notifications/example/announcement","params":{"text":"caf\u00e9"}}` {
			t.Fatalf("frames: %d, first %s", len(frames), frames[0].Raw)
		}
	})

	t.Run("logs never reach stdout", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve", "-log-level", "debug")
		r := p.Client.Call(t, "tools/call", map[string]any{"name": "crash"})
		if r.Error == nil || r.Error.Code != -32603 {
			t.Fatalf("crash: %s", r.Raw)
		}
		p.Send(t, call("c", "slow", nil))
		// Cancel once the handler runs (it logs as it starts): a call
		// cancelled while still queued never runs, so it logs nothing.
		p.WaitStderr(t, "slow call waiting")
		p.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "c"}))
		p.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
		p.CloseInput()
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit status %d\n%s", code, p.Stderr())
		}
		stderr := p.Stderr()
		for _, want := range []string{"component=protoactor", "application callback panicked", "slow call waiting"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("standard error lacks %q:\n%s", want, stderr)
			}
		}
		// Anything on stdout that is not a valid protocol frame fails t.
		p.Client.CheckFrames(t)
		if t.Failed() {
			t.Fatal("standard output carried something other than protocol frames")
		}
		for _, f := range p.Client.Frames() {
			if !bytes.HasPrefix(f.Raw, []byte(`{"jsonrpc":"2.0",`)) {
				t.Fatalf("not a protocol frame on stdout: %s", f.Raw)
			}
		}
	})

	t.Run("terminate signal ends the server", func(t *testing.T) {
		t.Parallel()
		p := testfixture.StartProcess(t, bin, "-serve", "-grace", "500ms")
		p.Send(t, call("held", "slow", nil))
		p.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
		if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.Wait(t); code != 1 || !strings.Contains(p.Stderr(), "terminated signal received") {
			t.Fatalf("exit status %d, want 1 after a signal\n%s", code, p.Stderr())
		}
		if answered(p.Client, `"held"`) {
			t.Fatal("the cancelled call was answered")
		}
	})

	t.Run("blocked output ends the server", func(t *testing.T) {
		t.Parallel()
		// Nobody reads the server's output: once the pipe's buffer is
		// full its write blocks, and the write timeout must end it.
		cmd := exec.Command(bin, "-serve", "-write-timeout", "200ms")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := strings.Repeat("y", 100_000)
			for i := range 20 {
				if _, err := in.Write(append(call(i, "echo", map[string]any{"text": text}), '\n')); err != nil {
					return // the server has gone
				}
			}
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !asExit(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "write timed out") {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
		case <-time.After(testkit.DefaultTimeout):
			_ = cmd.Process.Kill()
			<-done
			t.Fatal("the server never gave up on its blocked output")
		}
		in.Close()
		wg.Wait()
		_, _ = io.Copy(io.Discard, out)
	})
}

func asExit(err error, target **exec.ExitError) bool {
	ee, ok := err.(*exec.ExitError)
	*target = ee
	return ok
}
