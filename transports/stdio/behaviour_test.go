package stdio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

func TestFastRequestOvertakesSlowOne(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g))
	srv.Send(t, testkit.Request("slow", "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	fast := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "fast"}})
	if fast.Error != nil {
		t.Fatalf("fast call: %s", fast.Raw)
	}
	for _, f := range srv.Client.Frames() {
		if string(f.ID) == `"slow"` {
			t.Fatalf("the slow call answered before it was released: %s", f.Raw)
		}
	}
	close(g.release)
	if r := srv.Client.AwaitResponse(t, `"slow"`); !strings.Contains(string(r.Raw), "released") {
		t.Fatalf("slow call: %s", r.Raw)
	}
	frames := srv.Client.Frames()
	if string(frames[0].ID) == `"slow"` {
		t.Fatalf("response order: the slow call came first")
	}
}

func TestTreeShowsConnectionWriterAndEachRequest(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g), stdio.WithName("tree-test"), stdio.WithLimits(stdio.Limits{MaxSubscriptions: 7}))
	for i := range 3 {
		srv.Send(t, testkit.Request(fmt.Sprintf("r%d", i), "tools/call", map[string]any{"name": "hold"}))
		mustWait(t, g.entered)
	}
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return n.Count("request") == 3 })
	conn := testkit.Find(tree, "connection")
	if conn == nil || !strings.HasPrefix(conn.ID, "snodo/stdio$") {
		t.Fatalf("no stdio connection in the tree: %+v", tree)
	}
	if conn.Attrs["name"] != "tree-test" || conn.Attrs["maxSubscriptions"] != "7" || conn.Attrs["transport"] != "stdio" {
		t.Fatalf("connection attributes: %v", conn.Attrs)
	}
	ids := map[string]bool{}
	var writers int
	for _, ch := range conn.Children {
		switch ch.Kind {
		case "writer":
			writers++
		case "request":
			if ch.Attrs["method"] != "tools/call" || ch.Attrs["deadline"] == "" {
				t.Errorf("request attributes: %v", ch.Attrs)
			}
			ids[ch.Attrs["id"]] = true
		}
	}
	if writers != 1 || len(ids) != 3 || !ids[`"r0"`] || !ids[`"r2"`] {
		t.Fatalf("connection children: writers=%d requests=%v", writers, ids)
	}
	close(g.release)
	testkit.WaitNoRequests(t, srv.Sup)
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool {
		return n.Count("connection") == 0 && n.Count("writer") == 0
	})
}

func TestOversizeLineThenNormalLine(t *testing.T) {
	srv := testkit.StartStdio(t, testRuntime(t, newGate()), stdio.WithLimits(stdio.Limits{MaxLineBytes: 1000}))
	// 999 bytes plus the newline is exactly the limit: served.
	pad := strings.Repeat("x", 999-len(`{"jsonrpc":"2.0","method":"notifications/x","params":{"p":""}}`))
	exact := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/x","params":{"p":"%s"}}`, pad)
	if len(exact) != 999 {
		t.Fatalf("test line is %d bytes", len(exact))
	}
	srv.Send(t, []byte(exact))
	// One byte more is refused before decoding: this line is not even JSON.
	srv.SendRaw(t, append([]byte(strings.Repeat("{", 1000)), '\n'))
	resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "next"}})
	if resp.Error != nil {
		t.Fatalf("the line after an oversize one: %s", resp.Raw)
	}
	frames := srv.Client.Frames()
	if len(frames) != 2 {
		t.Fatalf("want the refusal and the response, got %d frames", len(frames))
	}
	if f := frames[0]; f.ID != nil || f.Error == nil || f.Error.Code != -32600 {
		t.Fatalf("oversize line: %s", f.Raw)
	}
}

func TestByteOrderMarkIgnored(t *testing.T) {
	srv := testkit.StartStdio(t, testRuntime(t, newGate()))
	srv.SendRaw(t, append([]byte("\xEF\xBB\xBF"), append(testkit.Request(1, "server/discover", nil), '\n')...))
	if r := srv.Client.AwaitResponse(t, "1"); r.Error != nil {
		t.Fatalf("request after a BOM: %s", r.Raw)
	}
	// Only a leading BOM is ignored; one later in the stream is bad JSON.
	srv.SendRaw(t, append([]byte("\xEF\xBB\xBF"), append(testkit.Request(2, "server/discover", nil), '\n')...))
	f, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Error != nil })
	if err != nil || f.Error.Code != -32700 {
		t.Fatalf("a BOM inside the stream: %v %v", f, err)
	}
}

func TestNonASCIIOutputIsEscaped(t *testing.T) {
	srv := testkit.StartStdio(t, testRuntime(t, newGate()))
	resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "h\u00e9llo \u2603 \U0001F600"}})
	for _, want := range []string{`h\u00e9llo`, `\u2603`, `\ud83d\ude00`} {
		if !strings.Contains(string(resp.Raw), want) {
			t.Errorf("response lacks %s: %s", want, resp.Raw)
		}
	}
	for _, b := range resp.Raw {
		if b >= 0x80 {
			t.Fatalf("non-ASCII byte in %q", resp.Raw)
		}
	}
}

func TestBlockedOutputEndsTheConnectionWithinTheWriteTimeout(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	w := newBlockingWriter()
	c, in := startPiped(t, context.Background(), testRuntime(t, newGate()), w, stdio.WithLimits(stdio.Limits{WriteTimeout: 100 * time.Millisecond}))
	writeLine(t, in, testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	<-w.entered
	err := waitDone(t, c)
	select {
	case <-w.release:
		t.Fatal("released too early")
	default: // the write is still blocked: the connection ended without it returning
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.Is(err, stdio.ErrOutputFailed) {
		t.Fatalf("Wait: %v, want a write timeout", err)
	}
	close(w.release)
	in.Close()
	if n := w.writes.Load(); n != 1 {
		t.Fatalf("%d writes; nothing may be written after a terminal failure", n)
	}
	if w.closed.Load() {
		t.Fatal("the transport closed the supplied writer")
	}
}

func TestFailedWriteIsTerminalAndNeverRetried(t *testing.T) {
	boom := errors.New("device gone")
	w := newFailingWriter(boom, 1)
	g := newGate()
	logs := newLogRecorder()
	c, in := startPiped(t, context.Background(), testRuntime(t, g, dispatch.WithLogger(slog.New(logs))), w)
	writeLine(t, in, testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "one"}}))
	<-w.wrote
	writeLine(t, in, testkit.Request(2, "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	writeLine(t, in, testkit.Request(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "three"}}))
	err := waitDone(t, c)
	if !errors.Is(err, boom) || !errors.Is(err, stdio.ErrOutputFailed) {
		t.Fatalf("Wait: %v, want the write's error", err)
	}
	if n := w.writes.Load(); n != 2 {
		t.Fatalf("%d writes, want the one that worked and the one that failed", n)
	}
	if !strings.Contains(w.String(), `"one"`) || strings.Contains(w.String(), `"three"`) {
		t.Fatalf("output: %s", w.String())
	}
	// Wait returned without abandoning anything: the held handler was
	// cancelled by the failure and returned.
	if _, abandoned := logs.find("abandoning"); abandoned {
		t.Fatal("the output failure did not cancel the running handler")
	}
}

func TestDuplicateInFlightID(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g))
	srv.Send(t, testkit.Request("dup", "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	srv.Send(t, testkit.Request("dup", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	f, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Error != nil })
	if err != nil || string(f.ID) != `"dup"` || f.Error.Code != -32600 {
		t.Fatalf("duplicate id: %v %v", f, err)
	}
	close(g.release)
	r, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Result != nil })
	if err != nil || !strings.Contains(string(r.Raw), "released") {
		t.Fatalf("the first request: %v %v", r, err)
	}
	// Once answered, the id may be used again.
	srv.Send(t, testkit.Request("dup", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "again"}}))
	if _, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return strings.Contains(string(f.Raw), "again") }); err != nil {
		t.Fatal(err)
	}
}

func TestEOFDoesNotWaitPastGraceForACancelledStubbornHandler(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	g := newGate()
	logs := newLogRecorder()
	out := newFailingWriter(nil, 1<<30)
	c, in := startPiped(t, context.Background(), testRuntime(t, g, dispatch.WithLogger(slog.New(logs))), out, stdio.WithLimits(stdio.Limits{GracePeriod: 100 * time.Millisecond}))
	writeLine(t, in, testkit.Request("s", "tools/call", map[string]any{"name": "stubborn"}))
	mustWait(t, g.entered)
	writeLine(t, in, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "s"}))
	in.Close()
	if err := waitDone(t, c); err != nil { // the handler is still blocked
		t.Fatal(err)
	}
	if attrs, ok := logs.find("abandoning it"); !ok || attrs["id"] != `"s"` {
		t.Fatalf("the abandoned handler was not reported: %v", attrs)
	}
	close(g.release)
	if out.String() != "" {
		t.Fatalf("output for a cancelled request: %s", out.String())
	}
}

func TestSuppliedStreamsAreNeverClosed(t *testing.T) {
	inR, inW := io.Pipe()
	r := &closeRecordingReader{Reader: inR}
	w := newFailingWriter(errors.New("unused"), 1<<30)
	closer := &closeRecordingWriter{failingWriter: w}
	errc := make(chan error, 1)
	go func() {
		errc <- stdio.Serve(context.Background(), testRuntime(t, newGate()), stdio.WithInput(r), stdio.WithOutput(closer))
	}()
	writeLine(t, inW, testkit.Request(1, "server/discover", nil))
	inW.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if r.closed.Load() || closer.closed.Load() {
		t.Fatal("the transport closed a supplied stream")
	}
	if !strings.Contains(w.String(), `"id":1`) {
		t.Fatalf("output: %s", w.String())
	}
}

func TestCancelledContextEndsWithinGraceDespiteStubbornHandler(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	g := newGate()
	logs := newLogRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	out := newFailingWriter(nil, 1<<30)
	c, in := startPiped(t, ctx, testRuntime(t, g, dispatch.WithLogger(slog.New(logs))), out, stdio.WithLimits(stdio.Limits{GracePeriod: 150 * time.Millisecond}))
	writeLine(t, in, testkit.Request("s", "tools/call", map[string]any{"name": "stubborn"}))
	mustWait(t, g.entered)
	cancel()
	err := waitDone(t, c) // returns although the handler is still blocked
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait: %v, want context.Canceled", err)
	}
	attrs, ok := logs.find("abandoning it")
	if !ok || attrs["id"] != `"s"` || attrs["method"] != "tools/call" {
		t.Fatalf("the stubborn handler was not reported: %v", attrs)
	}
	close(g.release) // the handler finishes now; its result is discarded
	in.Close()
	if strings.Contains(out.String(), "finished anyway") {
		t.Fatalf("a stubborn handler's result was written: %s", out.String())
	}
}

func TestStopHandleAndAppSupervisor(t *testing.T) {
	g := newGate()
	rt := testRuntime(t, g)
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := sup.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	out := newFailingWriter(nil, 1<<30)
	c, in := startPiped(t, context.Background(), rt, out, stdio.WithSupervisor(sup))
	writeLine(t, in, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
	if conn := testkit.Find(tree, "connection"); conn == nil || conn.ID != c.ID() {
		t.Fatalf("the connection %s is not in the application's tree", c.ID())
	}
	c.Stop()
	if err := waitDone(t, c); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("Wait after Stop: %v", err)
	}
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("connection") == 0 })
	if strings.Contains(out.String(), `"id":1`) {
		t.Fatalf("a response was written for work cancelled by Stop: %s", out.String())
	}

	// Closing the application's tree ends a transport running in it.
	c2, _ := startPiped(t, context.Background(), rt, out, stdio.WithSupervisor(sup))
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("connection") == 1 })
	if err := sup.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := waitDone(t, c2); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("Wait after the supervisor closed: %v", err)
	}
	// A transport started in a tree already closed ends the same way.
	if err := stdio.Serve(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(strings.NewReader("")), stdio.WithOutput(io.Discard)); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("Serve in a closed tree: %v", err)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

func TestSupervisorLimits(t *testing.T) {
	g := newGate()
	rt := testRuntime(t, g)
	sup := quietSupervisor(t, rt, supervisor.WithLimits(supervisor.Limits{MaxConcurrency: 1, MaxQueue: -1}))
	srv := testkit.StartStdioWith(t, sup, rt)
	srv.Send(t, testkit.Request("held", "tools/call", map[string]any{"name": "hold"}))
	mustWait(t, g.entered)
	if ex := testkit.Find(sup.Tree(), "executor"); ex.Attrs["running"] != "1" || ex.Attrs["max_concurrency"] != "1" {
		t.Fatalf("the tree's executor: %v, want 1 job running of 1", ex.Attrs)
	}
	// Its one slot is taken and it has no queue: the next call is refused.
	r := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	if r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Server execution capacity exhausted" {
		t.Fatalf("over capacity: %s", r.Raw)
	}
	close(g.release)
	srv.Client.AwaitResponse(t, `"held"`)
}

func TestRequestTimeout(t *testing.T) {
	g := newGate()
	srv := testkit.StartStdio(t, testRuntime(t, g), stdio.WithLimits(stdio.Limits{RequestTimeout: 50 * time.Millisecond}))
	r := srv.Client.Call(t, "tools/call", map[string]any{"name": "stubborn"})
	if r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Request execution timed out" {
		t.Fatalf("timed-out request: %s", r.Raw)
	}
	close(g.release) // the handler's late result is discarded
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range srv.Client.WaitClosed(t) {
		if string(f.ID) == string(r.ID) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d responses for the timed-out request, want exactly 1", n)
	}
}

func TestOptionsAreValidated(t *testing.T) {
	rt := testRuntime(t, newGate())
	for name, opt := range map[string]stdio.Option{
		"WithLimits: WriteTimeout must not be negative":     stdio.WithLimits(stdio.Limits{WriteTimeout: -time.Second}),
		"WithLimits: MaxLineBytes must be at least 2":       stdio.WithLimits(stdio.Limits{MaxLineBytes: 1}),
		"WithLimits: RequestTimeout must not be negative":   stdio.WithLimits(stdio.Limits{RequestTimeout: -time.Second}),
		"WithLimits: GracePeriod must not be negative":      stdio.WithLimits(stdio.Limits{GracePeriod: -time.Second}),
		"WithLimits: MaxSubscriptions must not be negative": stdio.WithLimits(stdio.Limits{MaxSubscriptions: -1}),
		"WithName: empty name":                              stdio.WithName(""),
		"WithInput: nil input":                              stdio.WithInput(nil),
		"WithOutput: nil output":                            stdio.WithOutput(nil),
		"WithSupervisor: nil supervisor":                    stdio.WithSupervisor(nil),
		`WithNotificationMethods: notification method "app/ping" must start with "notifications/"`:                   stdio.WithNotificationMethods("app/ping"),
		`WithNotificationMethods: notification method "notifications/" must start with "notifications/"`:             stdio.WithNotificationMethods("notifications/"),
		`WithNotificationMethods: notification method "notifications/progress" is defined by the protocol`:           stdio.WithNotificationMethods("notifications/progress"),
		`WithNotificationMethods: notification method "notifications/cancelled" is defined by the protocol`:          stdio.WithNotificationMethods("notifications/cancelled"),
		`WithNotificationMethods: notification method "notifications/tools/list_changed" is defined by the protocol`: stdio.WithNotificationMethods("notifications/tools/list_changed"),
		`WithNotificationMethods: notification method "notifications/a b" must be printable ASCII without spaces`:    stdio.WithNotificationMethods("notifications/a b"),
	} {
		if _, err := stdio.Start(context.Background(), rt, opt); err == nil || !strings.HasPrefix(err.Error(), "stdio: "+name) {
			t.Errorf("Start with an invalid option: %v, want %q", err, "stdio: "+name)
		}
	}
	if _, err := stdio.Start(context.Background(), nil); err == nil {
		t.Error("Start accepted a nil Runtime")
	}
}
