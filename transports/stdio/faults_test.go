package stdio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/faultio"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// Fault injection at the stdio transport's two edges, its input and its
// output, each fault with its specified outcome.

func echoCall(id int) []byte {
	return testkit.Request(id, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": fmt.Sprintf("text %d", id)}})
}

func echoInput(n int) string {
	var b strings.Builder
	for id := 1; id <= n; id++ {
		b.Write(echoCall(id))
		b.WriteByte('\n')
	}
	return b.String()
}

// answers parses the output's lines and returns the echoed text by id; it
// fails t on a line that is not a complete response or an id answered
// twice.
func answers(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := testfixture.CheckFrame(t, []byte(line), "tools/call")
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(f.Result, &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("not an echo result: %s", line)
		}
		id := string(f.ID)
		if _, dup := got[id]; dup {
			t.Fatalf("id %s answered twice", id)
		}
		got[id] = res.Content[0].Text
	}
	return got
}

func serveWith(t *testing.T, rt *dispatch.Runtime, in io.Reader, out io.Writer, opts ...stdio.Option) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(context.Background(), rt, append([]stdio.Option{stdio.WithInput(in), stdio.WithOutput(out)}, opts...)...)
	}()
	return done
}

func served(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("Serve did not return")
		return nil
	}
}

// Reads that return fewer bytes than asked, down to one byte at a time,
// and a last read that returns its data together with io.EOF, change
// nothing: every request is answered once, the unterminated last line
// included, and Serve returns nil at the end of input.
func TestFaultShortReadsAndDataWithEOF(t *testing.T) {
	const n = 20
	input := echoInput(n-1) + string(echoCall(n)) // the last line has no newline
	for _, tc := range []struct {
		name string
		in   func() io.Reader
	}{
		{"one byte per read", func() io.Reader { return &faultio.Reader{R: strings.NewReader(input), MaxRead: 1} }},
		{"seven bytes per read", func() io.Reader { return &faultio.Reader{R: strings.NewReader(input), MaxRead: 7} }},
		{"data with EOF", func() io.Reader {
			return &faultio.Reader{R: strings.NewReader(input), Err: io.EOF, FailAfter: int64(len(input)), WithData: true}
		}},
		{"short reads, the last with EOF", func() io.Reader {
			return &faultio.Reader{R: strings.NewReader(input), MaxRead: 100, Err: io.EOF, FailAfter: int64(len(input)), WithData: true}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &testfixture.Buffer{}
			if err := served(t, serveWith(t, testRuntime(t, newGate()), tc.in(), out)); err != nil {
				t.Fatalf("Serve: %v", err)
			}
			got := answers(t, out.String())
			for id := 1; id <= n; id++ {
				if got[fmt.Sprint(id)] != fmt.Sprintf("text %d", id) {
					t.Fatalf("request %d: %q (answers: %v)", id, got[fmt.Sprint(id)], got)
				}
			}
		})
	}
}

// A read that fails with data: the complete lines in the data are served,
// the line the failure cut is dropped (it cannot be known complete), and
// the failure ends the input as end of input does, logged with its cause:
// the requests admitted are answered and Serve returns nil.
func TestFaultReadErrorWithData(t *testing.T) {
	var logs testfixture.Buffer
	rt := testRuntime(t, newGate(), dispatch.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	input := echoInput(2) + `{"jsonrpc":"2.0","id":3,"method":"tools/c`
	reset := errors.New("connection reset by peer")
	in := &faultio.Reader{R: strings.NewReader(input), Err: reset, FailAfter: int64(len(input)), WithData: true}
	out := &testfixture.Buffer{}
	if err := served(t, serveWith(t, rt, in, out)); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := answers(t, out.String())
	if len(got) != 2 || got["1"] != "text 1" || got["2"] != "text 2" {
		t.Fatalf("answers %v, want requests 1 and 2 only", got)
	}
	if !strings.Contains(logs.String(), "input failed") || !strings.Contains(logs.String(), reset.Error()) {
		t.Fatalf("the input failure was not logged with its cause:\n%s", logs.String())
	}
}

// While the input stalls (a read with nothing to return yet), the
// requests already read are answered; when it resumes, the rest are.
func TestFaultInputStallAnswersWhatCameBefore(t *testing.T) {
	first := string(echoCall(1)) + "\n"
	resume := make(chan struct{})
	var reads int
	in := &faultio.Reader{R: strings.NewReader(first + echoInput(3)[len(first):]), MaxRead: len(first), Stall: func() {
		reads++
		if reads == 2 {
			<-resume
		}
	}}
	outR, outW := io.Pipe()
	done := serveWith(t, testRuntime(t, newGate()), in, outW)
	sc := bufio.NewScanner(outR)
	if !sc.Scan() {
		t.Fatalf("no answer while the input stalled: %v", sc.Err())
	}
	if got := answers(t, sc.Text()+"\n"); got["1"] != "text 1" {
		t.Fatalf("answer during the stall: %s", sc.Text())
	}
	close(resume)
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		rest <- b.String()
	}()
	if err := served(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	outW.Close()
	if got := answers(t, <-rest); len(got) != 2 || got["2"] != "text 2" || got["3"] != "text 3" {
		t.Fatalf("answers after the stall: %v", got)
	}
}

// outputFailure runs a connection whose output is w: it reads the
// requests of input from a pipe kept open, so that only the output can end
// the connection, and returns Serve's error.
func outputFailure(t *testing.T, rt *dispatch.Runtime, input string, w io.Writer, opts ...stdio.Option) error {
	t.Helper()
	inR, inW := io.Pipe()
	defer inW.Close()
	done := serveWith(t, rt, inR, w, opts...)
	go func() { _, _ = io.WriteString(inW, input) }()
	return served(t, done)
}

// A write that takes only part of the frames is terminal: the output is
// cut, so nothing more is written and the connection ends with
// io.ErrShortWrite, whether the writer reported the short write with an
// error or, breaking io.Writer's contract, without one.
func TestFaultShortWrite(t *testing.T) {
	for _, loose := range []bool{false, true} {
		t.Run(fmt.Sprintf("without error %t", loose), func(t *testing.T) {
			out := &testfixture.Buffer{}
			w := &faultio.Writer{W: out, MaxWrite: 16, ShortWithoutError: loose}
			err := outputFailure(t, testRuntime(t, newGate()), echoInput(3), w)
			if !errors.Is(err, stdio.ErrOutputFailed) || !errors.Is(err, io.ErrShortWrite) {
				t.Fatalf("Serve: %v, want the output failed with io.ErrShortWrite", err)
			}
			if n := w.CallsAfterFailure(); n != 0 {
				t.Fatalf("%d writes after the short one", n)
			}
			if got := out.String(); len(got) != 16 {
				t.Fatalf("output %q, want the 16 bytes the device took", got)
			}
		})
	}
}

// TestFaultShortWriteWithoutError names the contract-breaking case alone,
// for the mutation check.
func TestFaultShortWriteWithoutError(t *testing.T) {
	out := &testfixture.Buffer{}
	w := &faultio.Writer{W: out, MaxWrite: 16, ShortWithoutError: true}
	err := outputFailure(t, testRuntime(t, newGate()), echoInput(3), w)
	if !errors.Is(err, io.ErrShortWrite) || w.CallsAfterFailure() != 0 {
		t.Fatalf("Serve: %v, %d writes after the short one", err, w.CallsAfterFailure())
	}
}

// A device that fails after some bytes (a closed pipe) ends the
// connection: Serve returns the device's error inside ErrOutputFailed, a
// handler still running sees its cancellation, and nothing is written
// after the failed write.
func TestFaultWriteFailsAfterSomeBytes(t *testing.T) {
	g := newGate()
	out := &testfixture.Buffer{}
	first := testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "text 1"}})
	w := &faultio.Writer{W: out, Err: syscall.EPIPE, FailAfter: 40}
	inR, inW := io.Pipe()
	defer inW.Close()
	cancelled := make(chan error, 1)
	rt := testRuntime(t, g, dispatch.WithTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		g.entered <- "wait"
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}))
	done := serveWith(t, rt, inR, w)
	go func() {
		_, _ = inW.Write(append(testkit.Request(9, "tools/call", map[string]any{"name": "wait"}), '\n'))
	}()
	if got := waitEntered(t, g); got != "wait" {
		t.Fatalf("entered %q", got)
	}
	go func() { _, _ = inW.Write(append(first, '\n')) }()
	err := served(t, done)
	if !errors.Is(err, stdio.ErrOutputFailed) || !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Serve: %v, want the output failed with EPIPE", err)
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the running handler ended with %v", err)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the running handler was not cancelled")
	}
	if n := w.CallsAfterFailure(); n != 0 {
		t.Fatalf("%d writes after the failed one", n)
	}
	if got := out.String(); len(got) != 40 {
		t.Fatalf("output %q, want the 40 bytes the device took", got)
	}
}

func waitEntered(t *testing.T, g *gate) string {
	t.Helper()
	select {
	case id := <-g.entered:
		return id
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("no handler started")
		return ""
	}
}

// An output that stalls (not ready to take more) for less than the write
// timeout loses nothing: the frames wait and are then written whole, in
// order. One that stalls past it ends the connection with
// ErrWriteTimeout, and nothing more is written.
func TestFaultOutputStall(t *testing.T) {
	t.Run("shorter than the write timeout", func(t *testing.T) {
		stalled, resume := make(chan struct{}), make(chan struct{})
		var once sync.Once
		out := &testfixture.Buffer{}
		w := &faultio.Writer{W: out, Stall: func() { once.Do(func() { close(stalled); <-resume }) }}
		done := serveWith(t, testRuntime(t, newGate()), strings.NewReader(echoInput(10)), w)
		<-stalled
		close(resume)
		if err := served(t, done); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if got := answers(t, out.String()); len(got) != 10 {
			t.Fatalf("answers %v, want 10", got)
		}
	})
	t.Run("past the write timeout", func(t *testing.T) {
		resume := make(chan struct{})
		var once sync.Once
		out := &testfixture.Buffer{}
		w := &faultio.Writer{W: out, Stall: func() { once.Do(func() { <-resume }) }}
		err := outputFailure(t, testRuntime(t, newGate()), echoInput(3), w, stdio.WithLimits(stdio.Limits{WriteTimeout: 50 * time.Millisecond}))
		close(resume) // the stalled write returns; the pump then exits
		if !errors.Is(err, stdio.ErrOutputFailed) || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Serve: %v, want the output failed with a deadline error", err)
		}
		if n := w.Writes(); n != 1 {
			t.Fatalf("%d writes, want only the one that timed out", n)
		}
	})
}
