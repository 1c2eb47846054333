package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/mcp"
)

// gatedWriter is an output the test controls: each Write reports its
// bytes on entered, then blocks until the gate opens (once open, writes
// pass), or fails with fail when it is set.
type gatedWriter struct {
	entered chan []byte
	gate    chan struct{}
	fail    error
	writes  atomic.Int32

	mu  sync.Mutex
	out bytes.Buffer
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{entered: make(chan []byte, 64), gate: make(chan struct{})}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.writes.Add(1)
	g.entered <- bytes.Clone(p)
	<-g.gate
	if g.fail != nil {
		return 0, g.fail
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.Write(p)
}

func (g *gatedWriter) open() { close(g.gate) }

func (g *gatedWriter) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.String()
}

// waitEntered returns the bytes of the next write to reach the output.
func (g *gatedWriter) waitEntered(t *testing.T) []byte {
	t.Helper()
	select {
	case b := <-g.entered:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no write reached the output")
		return nil
	}
}

// finishedEvents passes on each job end the executor reports.
type finishedEvents struct {
	instrumentation.Nop
	ch chan string
}

func (f *finishedEvents) Executor(e instrumentation.ExecutorEvent) {
	if e.Kind == instrumentation.ExecutorFinished {
		f.ch <- e.Status
	}
}

func (f *finishedEvents) wait(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-f.ch:
		if got != want {
			t.Fatalf("a job ended %s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no job ended (want %s)", want)
	}
}

// A call whose response waits for the writer while its client cancels it
// gets no response: the writer drops a frame whose request was cancelled
// before the frame's turn came. The output is blocked by the test, so the
// response is certainly waiting when the cancellation arrives.
func TestWriterDropsAFrameCancelledWhileItWaits(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet),
		dispatch.WithTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("done"), nil
			}))
	if err != nil {
		t.Fatal(err)
	}
	ended := &finishedEvents{ch: make(chan string, 16)}
	exec := executor.New(executor.Config{Logger: quiet, Sink: ended})
	sys, err := newSystem(tree.SystemConfig{Logger: quiet, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	out := newGatedWriter()
	in := make(lines)
	h, err := sys.StartConn(tree.ConnConfig{Runtime: rt, Input: in, Output: out, Transport: dispatch.TransportStdio})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id int) []byte { return request(id, "tools/call", `"name":"echo","arguments":{}`) }

	// The first response takes the output and stays in its write.
	in <- call(1)
	ended.wait(t, "completed")
	if first := out.waitEntered(t); !bytes.Contains(first, []byte(`"id":1,`)) {
		t.Fatalf("first write: %s", first)
	}
	// The second call completes; its response waits behind the first.
	in <- call(2)
	ended.wait(t, "completed")
	// The client cancels it. The reader takes the next frame only after
	// it has passed the cancellation to the connection, and the tree's
	// answer comes after the connection has handled it: request 2 is no
	// longer in flight.
	in <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	in <- []byte(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
	waitConnRequests(t, sys, "1")

	out.open()
	close(in)
	select {
	case <-h.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end at EOF")
	}
	if err := h.Err(); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != 1 || !strings.Contains(got[0], `"id":1,`) {
		t.Fatalf("output after cancelling request 2 while its response waited:\n%s", out.String())
	}
	closeSystem(t, sys, exec)
}

// waitConnRequests waits until the one connection's node says requests
// are in flight. Each Tree call waits for the connection's own answer,
// which comes after every message sent to it before.
func waitConnRequests(t *testing.T, sys *system, requests string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var conn *tree.Node
		sys.Tree().Walk(func(n *tree.Node) {
			if n.Kind == tree.KindConnection {
				conn = n
			}
		})
		if conn != nil && conn.Attrs["requests"] == requests {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the connection never had %s request(s) in flight: %+v", requests, conn)
		}
	}
}

func closeSystem(t *testing.T, sys *system, exec *executor.Executor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sys.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

// writerParent runs one writer actor as its child and passes on what the
// writer tells its parent.
type writerParent struct {
	s      *system
	out    io.Writer
	writer chan *actor.PID
	told   chan any
}

func (p *writerParent) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		w := newWriter(p.s, p.out, time.Minute)
		pid, err := c.SpawnNamed(p.s.props(func() actor.Actor { return w }), "writer")
		if err != nil {
			panic(err)
		}
		select {
		case <-lastBox: // an earlier test's
		default:
		}
		lastBox <- w.box
		p.writer <- pid
	case *flushed, *writerFailed:
		p.told <- m
	}
}

// lastBox holds the outbox of the writer startWriter started last, for a
// test that posts to it directly, as producers do.
var lastBox = make(chan *outbox, 1)

// startWriter runs a writer on out and returns it with what it tells its
// parent. Cleanup stops it; out must let its writes return by then.
func startWriter(t *testing.T, out io.Writer) (*system, *actor.PID, chan any) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	sys, err := newSystem(tree.SystemConfig{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	p := &writerParent{s: sys, out: out, writer: make(chan *actor.PID, 1), told: make(chan any, 8)}
	parent := sys.sys.Root.Spawn(sys.props(func() actor.Actor { return p }))
	t.Cleanup(func() {
		if err := sys.sys.Root.StopFuture(parent).Wait(); err != nil {
			t.Error(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sys.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return sys, <-p.writer, p.told
}

// frameTo sends one frame to the writer and returns its acknowledgement
// channel.
func frameTo(sys *system, w *actor.PID, f *writeFrame) chan error {
	ack := make(chan error, 1)
	f.ack = ack
	sys.send(w, f)
	return ack
}

func ackOf(t *testing.T, ack chan error) error {
	t.Helper()
	select {
	case err := <-ack:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not acknowledge the frame")
		return nil
	}
}

// A frame whose context ended while it waited for its turn is dropped
// unwritten and acknowledged with the context's error.
func TestWriterDropsAFrameWhoseContextEndedWhileItWaits(t *testing.T) {
	out := newGatedWriter()
	sys, w, _ := startWriter(t, out)
	first := frameTo(sys, w, &writeFrame{frame: []byte("first")})
	out.waitEntered(t)
	ctx, cancel := context.WithCancel(context.Background())
	late := frameTo(sys, w, &writeFrame{frame: []byte("late"), ctx: ctx})
	cancel()
	out.open()
	if err := ackOf(t, first); err != nil {
		t.Fatal(err)
	}
	if err := ackOf(t, late); !errors.Is(err, context.Canceled) {
		t.Fatalf("the frame of an ended context: %v, want context.Canceled", err)
	}
	if err := ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte("next")})); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "first\nnext\n" {
		t.Fatalf("output %q", got)
	}
}

// Once its connection ends the writer refuses every frame, unwritten.
func TestWriterRefusesFramesAfterClose(t *testing.T) {
	out := newGatedWriter()
	out.open()
	sys, w, _ := startWriter(t, out)
	if err := ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte("before")})); err != nil {
		t.Fatal(err)
	}
	sys.send(w, &closeOutput{})
	if err := ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte("after")})); !errors.Is(err, tree.ErrConnClosed) {
		t.Fatalf("a frame after closeOutput: %v, want tree.ErrConnClosed", err)
	}
	if got := out.String(); got != "before\n" {
		t.Fatalf("output %q", got)
	}
}

// After a failed write the writer is terminal: it tells its parent, the
// failed frame gets ErrOutputFailed, and later frames ErrConnDown without
// another write reaching the output.
func TestWriterWritesNothingAfterAFailure(t *testing.T) {
	out := newGatedWriter()
	device := errors.New("device gone")
	out.fail = device
	out.open()
	sys, w, told := startWriter(t, out)
	err := ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte("fails")}))
	if !errors.Is(err, tree.ErrOutputFailed) || !errors.Is(err, device) {
		t.Fatalf("the failed frame: %v", err)
	}
	select {
	case m := <-told:
		if f, ok := m.(*writerFailed); !ok || !errors.Is(f.err, device) {
			t.Fatalf("the parent was told %#v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the parent was not told of the failure")
	}
	err = ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte("after")}))
	if !errors.Is(err, tree.ErrConnDown) || !errors.Is(err, device) {
		t.Fatalf("a frame after the failure: %v", err)
	}
	if n := out.writes.Load(); n != 1 {
		t.Fatalf("%d writes reached the output, want 1", n)
	}
}

// A writer keeps the buffer of its last write for the next one only when
// it is small: one large response must not stay allocated per connection.
func TestWriterKeepsOnlyASmallBuffer(t *testing.T) {
	small := make([]byte, 100, 4096)
	if b := spare(small); b == nil || len(b) != 0 || cap(b) != 4096 {
		t.Errorf("a 4 KiB buffer was not kept for reuse: len %d cap %d", len(b), cap(b))
	}
	if b := spare(make([]byte, 0, maxSpareBytes+1)); b != nil {
		t.Errorf("a buffer over %d bytes was kept (cap %d)", maxSpareBytes, cap(b))
	}
}

// Frames written one after another through the reused buffer arrive
// whole and in order, none overwritten by the next.
func TestWriterReusedBufferKeepsFrames(t *testing.T) {
	var out syncBuffer
	sys, w, _ := startWriter(t, &out)
	var want strings.Builder
	for i := range 50 {
		frame := strings.Repeat(string(rune('a'+i%26)), 10+i*37)
		if err := ackOf(t, frameTo(sys, w, &writeFrame{frame: []byte(frame)})); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want.WriteString(frame + "\n")
	}
	if got := out.String(); got != want.String() {
		t.Errorf("output differs from the frames written (%d bytes, want %d)", len(got), want.Len())
	}
}

// A worker's response is posted without waiting while little waits for
// the output; once more than maxWaitingBytes wait, the next response's
// worker gets its frame's acknowledgement to wait on, and the
// acknowledgement comes when the frame is written.
func TestOutboxMakesWorkersWaitBeyondTheBound(t *testing.T) {
	out := newGatedWriter()
	_, _, _ = startWriter(t, out)
	box := <-lastBox
	if wait := box.postResponse(&writeFrame{frame: []byte("first")}); wait != nil {
		t.Fatal("the first response waits for its write")
	}
	out.waitEntered(t) // the first write holds the output
	big := bytes.Repeat([]byte("x"), maxWaitingBytes)
	if wait := box.postResponse(&writeFrame{frame: big}); wait != nil {
		t.Fatal("a response waits although nothing else was waiting")
	}
	wait := box.postResponse(&writeFrame{frame: []byte("last")})
	if wait == nil {
		t.Fatalf("a response posted behind %d waiting bytes does not wait", maxWaitingBytes+1)
	}
	out.open()
	if err := ackOf(t, wait); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasSuffix(got, "last\n") || !strings.HasPrefix(got, "first\n") {
		t.Fatalf("output %d bytes, not first ... last", len(got))
	}
}
