package stdio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
	"go.uber.org/goleak"
)

func probeRuntime(t testing.TB, p *testfixture.Probe) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "chaos", Version: "1"},
		append(p.Options(), dispatch.WithLogger(slog.New(slog.DiscardHandler)))...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// quietSupervisor returns a supervision tree for rt, closed (and checked
// for dead letters) when the test ends.
func quietSupervisor(t testing.TB, rt *dispatch.Runtime, opts ...supervisor.Option) *supervisor.Supervisor {
	t.Helper()
	sup, err := supervisor.New(rt, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Errorf("closing the supervisor: %v", err)
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
	})
	return sup
}

// waitEmpty waits until no connection or request is left in the tree
// and the executor is idle.
func waitEmpty(t *testing.T, sup *supervisor.Supervisor) {
	t.Helper()
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return n.Count("connection")+n.Count("request")+n.Count("writer") == 0 &&
			e != nil && e.Attrs["running"] == "0" && e.Attrs["queued"] == "0"
	})
}

// Output that blocks forever, while the connection is busy: held calls
// and calls streaming progress in flight, more input arriving, an
// application notification waiting. The connection ends within the write
// timeout with a write-timeout error, every handler sees its cancellation,
// nothing is written again, and the tree empties. The blocked write
// itself stays blocked until the device returns (the test then releases
// it).
func TestChaosOutputBlockedForeverUnderLoad(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	probe := testfixture.NewProbe()
	t.Cleanup(probe.ReleaseAll)
	rt := probeRuntime(t, probe)
	sup := quietSupervisor(t, rt)
	w := newBlockingWriter()
	const writeTimeout = 200 * time.Millisecond
	inR, inW := io.Pipe()
	c, err := stdio.Start(context.Background(), rt,
		stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(w),
		stdio.WithLimits(stdio.Limits{WriteTimeout: writeTimeout}), stdio.WithNotificationMethods("notifications/chaos/tick"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); close(w.release) })
	send := func(frame []byte) {
		if _, err := inW.Write(append(frame, '\n')); err != nil {
			t.Errorf("writing input: %v", err)
		}
	}
	var holds []*testfixture.Gate
	for i := range 20 {
		tag := fmt.Sprintf("h%d", i)
		holds = append(holds, probe.Gate(tag))
		send(testfixture.ProbeCall(tag, "probe_hold", tag, 0))
	}
	for _, g := range holds {
		waitClosed(t, g.Entered, "a held call's start")
	}
	// Now the output jams: the first response blocks in the device.
	send(testfixture.ProbeCall("first", "probe_echo", "first", 0))
	<-w.entered
	jammed := time.Now()
	// More work and more input pile up behind it.
	feeder := make(chan struct{})
	go func() {
		defer close(feeder)
		for i := range 200 {
			tag := fmt.Sprintf("p%d", i)
			if _, err := inW.Write(append(testfixture.ProbeCall(tag, "probe_progress", tag, 0), '\n')); err != nil {
				return // the connection has stopped reading
			}
		}
	}()
	notifyErr := make(chan error, 1)
	go func() {
		notifyErr <- c.Notify(context.Background(), "notifications/chaos/tick", map[string]any{"n": 1})
	}()

	select {
	case <-c.Done():
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the connection did not end")
	}
	ended := time.Since(jammed)
	if err := c.Wait(); !errors.Is(err, os.ErrDeadlineExceeded) || !errors.Is(err, stdio.ErrOutputFailed) {
		t.Fatalf("Wait: %v, want a write timeout", err)
	}
	// The bound: the write timeout, plus what the runtime needs to notice
	// (generous for a loaded machine; a blocked connection would never end).
	if ended > writeTimeout+5*time.Second {
		t.Fatalf("the connection ended %v after its output blocked; the write timeout is %v", ended, writeTimeout)
	}
	for i, g := range holds {
		waitClosed(t, g.Cancelled, fmt.Sprintf("held call %d seeing the connection end", i))
	}
	if err := <-notifyErr; err == nil {
		t.Fatal("a notification was reported written on a jammed output")
	}
	inW.Close()
	<-feeder
	if n := w.writes.Load(); n != 1 {
		t.Fatalf("%d writes; nothing may be written after a terminal failure", n)
	}
	probe.WaitReturned(t)
	waitEmpty(t, sup)
}

// Handlers panicking under load: hundreds of pipelined calls, a third of
// which panic. Each call gets exactly one response (-32603 for a panic,
// or the capacity refusal if the executor's queue is full), the
// connection keeps serving, and it ends cleanly at end of input.
func TestChaosPanicsUnderLoad(t *testing.T) {
	probe := testfixture.NewProbe()
	rt := probeRuntime(t, probe)
	sup := quietSupervisor(t, rt)
	srv := testkit.StartStdioWith(t, sup, rt)
	const n = 600
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			tool := "probe_echo"
			switch i % 3 {
			case 0:
				tool = "probe_panic"
			case 1:
				tool = "probe_slow"
			}
			tag := fmt.Sprintf("c%d", i)
			if err := srv.Client.Send(testfixture.ProbeCall(tag, tool, tag, i%4)); err != nil {
				t.Errorf("sending: %v", err)
				return
			}
		}
	}()
	wg.Wait()
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := map[string]int{}
	for _, f := range srv.Client.WaitClosed(t) {
		id := strings.Trim(string(f.ID), `"`)
		var i int
		if _, err := fmt.Sscanf(id, "c%d", &i); err != nil {
			t.Fatalf("unexpected frame %s", f.Raw)
		}
		got[id]++
		switch {
		case f.Error != nil && f.Error.Message == "Server execution capacity exhausted":
			// Refused at admission: also exactly one outcome.
		case i%3 == 0 && (f.Error == nil || f.Error.Code != -32603):
			t.Errorf("panicking call %s: %s", id, f.Raw)
		case i%3 != 0 && testfixture.ProbeText(f) != id:
			t.Errorf("call %s: %s", id, f.Raw)
		}
	}
	for i := range n {
		if id := fmt.Sprintf("c%d", i); got[id] != 1 {
			t.Errorf("%s: %d responses", id, got[id])
		}
	}
	probe.WaitReturned(t)
	waitEmpty(t, sup)
}

// An owner that dies with queued work: two connections share an executor
// of two workers; one fills it with held calls and queues more, then is
// stopped. Its queued calls never run, its running ones see their
// cancellation, nothing more is written for it, and the executor is free
// for the other connection, which is served meanwhile and afterwards.
func TestChaosOwnerDiesWithQueuedWork(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	probe := testfixture.NewProbe()
	t.Cleanup(probe.ReleaseAll)
	rt := probeRuntime(t, probe)
	sup := quietSupervisor(t, rt, supervisor.WithLimits(supervisor.Limits{MaxConcurrency: 2, MaxQueue: 100}))

	out := newFailingWriter(nil, 1<<30) // records what the dying connection writes
	dying, in := startPiped(t, context.Background(), rt, out, stdio.WithSupervisor(sup))
	running := []*testfixture.Gate{probe.Gate("run0"), probe.Gate("run1")}
	writeLine(t, in, testfixture.ProbeCall("run0", "probe_hold", "run0", 0))
	writeLine(t, in, testfixture.ProbeCall("run1", "probe_hold", "run1", 0))
	for _, g := range running {
		waitClosed(t, g.Entered, "a held call's start")
	}
	var queued []*testfixture.Gate
	for i := range 40 {
		tag := fmt.Sprintf("q%d", i)
		queued = append(queued, probe.Gate(tag))
		writeLine(t, in, testfixture.ProbeCall(tag, "probe_echo", tag, 0))
	}
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return e != nil && e.Attrs["queued"] == "40"
	})

	// The survivor's call waits in the same queue, behind the dying
	// connection's work.
	survivor := testkit.StartStdioWith(t, sup, rt)
	survivor.Send(t, testfixture.ProbeCall("s0", "probe_echo", "s0", 0))

	dying.Stop()
	if err := waitDone(t, dying); !errors.Is(err, stdio.ErrStopped) {
		t.Fatalf("Wait: %v", err)
	}
	for _, g := range running {
		waitClosed(t, g.Cancelled, "a running call seeing its owner die")
	}
	if r := survivor.Client.AwaitResponse(t, `"s0"`); testfixture.ProbeText(r) != "s0" {
		t.Fatalf("survivor: %s", r.Raw)
	}
	for i := range 5 {
		tag := fmt.Sprintf("s%d", i+1)
		if r := survivor.Client.Call(t, "tools/call", map[string]any{"name": "probe_echo", "arguments": map[string]any{"tag": tag}}); testfixture.ProbeText(r) != tag {
			t.Fatalf("survivor: %s", r.Raw)
		}
	}
	for i, g := range queued {
		select {
		case <-g.Entered:
			t.Errorf("queued call q%d ran after its owner died", i)
		default:
		}
	}
	if s := out.String(); s != "" {
		t.Fatalf("the dead connection wrote %q", s)
	}
	if n := executorCount(t, sup, "queued"); n != 0 {
		t.Fatalf("executor after the owner died: %d queued", n)
	}
	survivor.CloseInput()
	if err := survivor.Wait(t); err != nil {
		t.Fatal(err)
	}
	probe.WaitReturned(t)
	waitEmpty(t, sup)
}
