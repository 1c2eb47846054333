package stdio_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
	"go.uber.org/goleak"
)

const hint = "notifications/app/hint"

// startWithClient starts a transport over pipes with a test client on its
// output, and returns the handle, the client and the input.
func startWithClient(t *testing.T, ctx context.Context, rt *dispatch.Runtime, opts ...stdio.Option) (*stdio.Conn, *testkit.Client, *io.PipeWriter) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, err := stdio.Start(ctx, rt, append([]stdio.Option{stdio.WithInput(inR), stdio.WithOutput(outW)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	client := testkit.NewClient(outR, inW)
	t.Cleanup(func() {
		inW.Close()
		c.Stop()
		waitDone(t, c)
		outW.Close()
		client.WaitClosed(t)
		client.CheckFrames(t)
	})
	return c, client, inW
}

func notifyKind(t *testing.T, err error, want error) *stdio.NotifyError {
	t.Helper()
	var ne *stdio.NotifyError
	if !errors.As(err, &ne) || !errors.Is(err, want) {
		t.Fatalf("Notify: %v, want %v", err, want)
	}
	for _, other := range []error{stdio.ErrClosed, stdio.ErrTransportDown, stdio.ErrOutputFailed, stdio.ErrOutcomeUnknown, stdio.ErrInvalidNotification} {
		if other != want && errors.Is(err, other) {
			t.Fatalf("Notify: %v is also %v; the kinds must be distinct", err, other)
		}
	}
	return ne
}

func TestNotifySendsAllowedNotificationsThroughTheWriter(t *testing.T) {
	ctx := context.Background()
	rt := testRuntime(t, newGate())
	sup := quietSupervisor(t, rt)
	c, client, in := startWithClient(t, ctx, rt, stdio.WithSupervisor(sup), stdio.WithNotificationMethods(hint), stdio.WithName("notify-test"))
	if got, ok := stdio.Lookup(sup, "notify-test"); !ok || got != c {
		t.Fatal("Lookup does not find the running transport")
	}
	if _, err := stdio.Start(ctx, rt, stdio.WithSupervisor(sup), stdio.WithName("notify-test"), stdio.WithInput(strings.NewReader("")), stdio.WithOutput(io.Discard)); err == nil {
		t.Fatal("a second transport took a name in use in the same tree")
	}
	// Names belong to a tree: another tree has none of them, and may
	// use the same one.
	other := quietSupervisor(t, rt)
	if _, ok := stdio.Lookup(other, "notify-test"); ok {
		t.Fatal("a name is visible from another supervision tree")
	}
	twin, err := stdio.Start(ctx, rt, stdio.WithSupervisor(other), stdio.WithName("notify-test"), stdio.WithInput(strings.NewReader("")), stdio.WithOutput(io.Discard))
	if err != nil {
		t.Fatalf("the same name in another tree: %v", err)
	}
	if err := waitDone(t, twin); err != nil {
		t.Fatal(err)
	}

	if err := c.Notify(ctx, hint, map[string]any{"text": "caf\u00e9"}); err != nil {
		t.Fatal(err)
	}
	found, _ := stdio.Lookup(sup, "notify-test")
	if err := found.Notify(ctx, hint, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Await(ctx, func(f *testkit.Frame) bool {
		return string(f.Raw) == `{"jsonrpc":"2.0","method":"notifications/app/hint","params":{}}`
	}); err != nil {
		t.Fatal(err)
	}
	frames := client.Frames()
	if len(frames) != 2 {
		t.Fatalf("%d frames, want 2", len(frames))
	}
	if got := string(frames[0].Raw); got != `{"jsonrpc":"2.0","method":"notifications/app/hint","params":{"text":"caf\u00e9"}}` {
		t.Fatalf("frame: %s", got)
	}
	if got := string(frames[1].Raw); got != `{"jsonrpc":"2.0","method":"notifications/app/hint","params":{}}` {
		t.Fatalf("frame with nil params: %s", got)
	}

	// Invalid input writes nothing.
	notifyKind(t, c.Notify(ctx, "notifications/app/other", nil), stdio.ErrInvalidNotification)
	notifyKind(t, c.Notify(ctx, "notifications/progress", nil), stdio.ErrInvalidNotification)
	notifyKind(t, c.Notify(ctx, hint, []int{1, 2}), stdio.ErrInvalidNotification)
	notifyKind(t, c.Notify(ctx, hint, "text"), stdio.ErrInvalidNotification)
	notifyKind(t, c.Notify(ctx, hint, map[string]any{"c": make(chan int)}), stdio.ErrInvalidNotification)
	client.Call(t, "server/discover", nil) // a round trip: anything written before it has arrived
	if n := len(client.Frames()); n != 3 {
		t.Fatalf("%d frames after invalid notifications, want the 2 sent and one response", n)
	}

	in.Close()
	if err := waitDone(t, c); err != nil {
		t.Fatal(err)
	}
	notifyKind(t, c.Notify(ctx, hint, nil), stdio.ErrClosed)
	if _, ok := stdio.Lookup(sup, "notify-test"); ok {
		t.Fatal("the name outlived its transport")
	}
}

func TestNotifyErrorsWhileOutputIsBlocked(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	w := newBlockingWriter()
	c, in := startPiped(t, context.Background(), testRuntime(t, newGate()), w,
		stdio.WithLimits(stdio.Limits{WriteTimeout: time.Second}), stdio.WithNotificationMethods(hint))
	writeLine(t, in, testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	<-w.entered

	// The caller's own deadline passes while its frame waits behind the
	// blocked write: the outcome is unknown.
	short, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	ne := notifyKind(t, c.Notify(short, hint, nil), stdio.ErrOutcomeUnknown)
	if !errors.Is(ne, context.DeadlineExceeded) {
		t.Fatalf("the reason should be the caller's deadline: %v", ne)
	}

	// A caller still waiting when the blocked write times out: the
	// transport went down while it waited; its frame was never written.
	ne = notifyKind(t, c.Notify(context.Background(), hint, nil), stdio.ErrTransportDown)
	if !errors.Is(ne, os.ErrDeadlineExceeded) {
		t.Fatalf("the reason should be the write timeout: %v", ne)
	}
	if err := waitDone(t, c); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Wait: %v", err)
	}
	notifyKind(t, c.Notify(context.Background(), hint, nil), stdio.ErrClosed)
	close(w.release)
	if n := w.writes.Load(); n != 1 {
		t.Fatalf("%d writes, want only the blocked one", n)
	}
}

func TestNotifyOwnWriteFailing(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		boom := errors.New("device gone")
		w := newFailingWriter(boom, 0)
		c, _ := startPiped(t, context.Background(), testRuntime(t, newGate()), w, stdio.WithNotificationMethods(hint))
		ne := notifyKind(t, c.Notify(context.Background(), hint, nil), stdio.ErrOutputFailed)
		if !errors.Is(ne, boom) {
			t.Fatalf("reason: %v", ne)
		}
		if err := waitDone(t, c); !errors.Is(err, boom) {
			t.Fatalf("Wait: %v; an output failure is terminal", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Cleanup(func() { goleak.VerifyNone(t) })
		w := newBlockingWriter()
		c, _ := startPiped(t, context.Background(), testRuntime(t, newGate()), w,
			stdio.WithLimits(stdio.Limits{WriteTimeout: 50 * time.Millisecond}), stdio.WithNotificationMethods(hint))
		ne := notifyKind(t, c.Notify(context.Background(), hint, nil), stdio.ErrOutputFailed)
		if !errors.Is(ne, os.ErrDeadlineExceeded) {
			t.Fatalf("reason: %v", ne)
		}
		if err := waitDone(t, c); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Wait: %v", err)
		}
		close(w.release)
	})
}

func TestNotifyWaitingWhenTheTransportIsStopped(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	rt := testRuntime(t, newGate())
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	w := newBlockingWriter()
	ctx, cancel := context.WithCancel(context.Background())
	c, in := startPiped(t, ctx, rt, w, stdio.WithSupervisor(sup),
		stdio.WithLimits(stdio.Limits{WriteTimeout: time.Minute}), stdio.WithNotificationMethods(hint))
	writeLine(t, in, testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	<-w.entered
	errc := make(chan error, 1)
	go func() { errc <- c.Notify(context.Background(), hint, nil) }()
	// The notification waits behind the blocked write.
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		wr := testkit.Find(n, "writer")
		return wr != nil && wr.Attrs["pending"] == "1"
	})
	cancel()
	ne := notifyKind(t, <-errc, stdio.ErrTransportDown)
	if !errors.Is(ne, context.Canceled) {
		t.Fatalf("reason: %v", ne)
	}
	if err := waitDone(t, c); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait: %v", err)
	}
	close(w.release)
}
