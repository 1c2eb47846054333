package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// heldConn is a connection whose "hold" tool runs until its context ends;
// started hears of each call starting, ended of each context ending. Its
// "gate" tool starts likewise and answers once gate is closed.
type heldConn struct {
	gate    chan struct{}
	sys     *system
	exec    *executor.Executor
	in      *chanReader
	sink    *lineSink
	outW    *io.PipeWriter
	conn    tree.Conn
	started chan struct{}
	ended   chan struct{}
	// inputEnded makes endInput idempotent.
	inputEnded sync.Once
}

func startHeldConn(t *testing.T, delay time.Duration) *heldConn {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	h := &heldConn{started: make(chan struct{}, 8), ended: make(chan struct{}, 8), gate: make(chan struct{})}
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			h.started <- struct{}{}
			<-ctx.Done()
			h.ended <- struct{}{}
			return nil, ctx.Err()
		}),
		dispatch.WithTool(mcp.Tool{Name: "gate"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			h.started <- struct{}{}
			select {
			case <-h.gate:
				return mcp.TextResult("opened"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	h.exec = executor.New(executor.Config{Logger: quiet})
	h.sys, err = newSystem(tree.SystemConfig{Logger: quiet, Executor: h.exec})
	if err != nil {
		t.Fatal(err)
	}
	h.sys.requestActorDelay = delay
	h.in = &chanReader{frames: make(chan []byte, 8)}
	outR, outW := io.Pipe()
	h.outW = outW
	h.sink = newLineSink(outR)
	h.conn, err = h.sys.StartConn(tree.ConnConfig{Prefix: "stdio", Runtime: rt, Input: h.in, Output: outW, Transport: dispatch.TransportStdio})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// wait receives from ch, failing the test after 10 s.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
	}
}

// waitUntil polls cond every millisecond until it holds, failing the
// test with what() after 10 s.
func waitUntil(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(time.Millisecond)
	}
}

// endInput ends the connection's input, once however often it is called.
func (h *heldConn) endInput() { h.inputEnded.Do(func() { close(h.in.frames) }) }

// close ends input and the tree, and checks nothing leaked.
func (h *heldConn) close(t *testing.T) {
	t.Helper()
	h.endInput()
	wait(t, h.conn.Done(), "the connection's end")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.sys.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.exec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h.outW.Close()
	<-h.sink.done
	if n := h.sys.registered(); n != 0 {
		t.Fatalf("%d actors still registered after Close", n)
	}
	if n := h.sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

// requestActors lists the request actors in the process registry, without
// inspecting the tree (which would spawn the pending ones).
func (h *heldConn) requestActors() []string {
	var ids []string
	for _, m := range h.sys.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range m.Keys() {
			if strings.HasPrefix(id, h.conn.ID()+"/req$") {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// A request still running after the spawn delay gets its own actor under
// its connection, without anyone inspecting the tree; cancelling it
// stops that actor and its work.
func TestLongRequestGetsItsActorAfterTheDelay(t *testing.T) {
	h := startHeldConn(t, 5*time.Millisecond)
	h.in.frames <- request(1, "tools/call", `"name":"hold"`)
	wait(t, h.started, "the call's start")
	waitUntil(t, func() bool { return len(h.requestActors()) == 1 },
		func() string { return fmt.Sprintf("request actors: %v, want one", h.requestActors()) })
	h.in.frames <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	wait(t, h.ended, "the call's cancellation")
	waitTree(t, h.sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 })
	h.close(t)
}

// Inspection shows a request whose actor is not spawned yet: the
// connection spawns it first, so the tree holds every request in flight.
func TestInspectionShowsARequestBeforeItsDelay(t *testing.T) {
	h := startHeldConn(t, time.Hour)
	h.in.frames <- request(1, "tools/call", `"name":"hold"`)
	wait(t, h.started, "the call's start")
	if ids := h.requestActors(); len(ids) != 0 {
		t.Fatalf("request actors before any inspection: %v", ids)
	}
	snap := waitTree(t, h.sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 1 })
	req := findKind(snap, tree.KindRequest)
	if req.Attrs["id"] != "1" || req.Attrs["method"] != "tools/call" || req.Attrs["state"] != "running" {
		t.Fatalf("request node: %+v", req.Attrs)
	}
	h.in.frames <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	wait(t, h.ended, "the call's cancellation")
	waitTree(t, h.sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 })
	h.close(t)
}

// Cancelling a request that has no actor yet still cancels its work, and
// nothing is written for it.
func TestCancelReachesARequestWithoutItsActor(t *testing.T) {
	h := startHeldConn(t, time.Hour)
	h.in.frames <- request(1, "tools/call", `"name":"hold"`)
	wait(t, h.started, "the call's start")
	h.in.frames <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	wait(t, h.ended, "the call's cancellation")
	if ids := h.requestActors(); len(ids) != 0 {
		t.Fatalf("request actors: %v, want none", ids)
	}
	// The next answer is the ping's: nothing was written for the call.
	h.in.frames <- request(2, "ping", "")
	var first struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(h.sink.waitFor(t, 1)[0]), &first); err != nil || string(first.ID) != "2" {
		t.Fatalf("first line is not the ping's answer: %s (%v)", first.ID, err)
	}
	h.close(t)
}

// hostRequestActors lists a host's request actors in the process
// registry, without inspecting the tree.
func hostRequestActors(s *system, h tree.Host) []string {
	var ids []string
	for _, m := range s.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range m.Keys() {
			if strings.HasPrefix(id, h.ID()+"/req$") {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// A host's exchange running a job gets its actor once it has run for the
// delay; inspection shows one whose delay has not passed; ending one
// without an actor cancels its job, as stopping its actor would.
func TestHostSpawnsAnExchangesActorLate(t *testing.T) {
	sys, exec := newHostSystem(t)
	sys.requestActorDelay = time.Hour
	h, err := sys.StartHost(tree.HostConfig{Prefix: "http", Kind: tree.KindListener})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 2)
	delivered := make(chan executor.Result, 2)
	r, err := h.Begin(tree.RequestSpec{Key: "a", ID: jsonrpc.IntID(1), Method: "tools/call",
		Run: holdJob(started, nil), Done: func(res executor.Result) { delivered <- res }})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if ids := hostRequestActors(sys, h); len(ids) != 0 {
		t.Fatalf("request actors before the delay: %v", ids)
	}
	// Ending it without an actor cancels its job.
	r.End()
	waitUntil(t, func() bool { return exec.Stats().Cancelled == 1 },
		func() string { return fmt.Sprintf("the ended exchange's job was not cancelled: %+v", exec.Stats()) })

	// Inspection spawns the actor of one still pending.
	r2, err := h.Begin(tree.RequestSpec{Key: "b", ID: jsonrpc.IntID(2), Method: "tools/call",
		Run: holdJob(started, nil), Done: func(res executor.Result) { delivered <- res }})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	snap := sys.Tree()
	if req := findKind(snap, tree.KindRequest); req == nil || req.Attrs["id"] != "2" || req.Attrs["state"] != "running" {
		t.Fatalf("inspection did not show the pending exchange: %+v", req)
	}
	r2.End()
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 })
	if st := exec.Stats(); st.Cancelled != 2 {
		t.Fatalf("stats %+v", st)
	}
	select {
	case res := <-delivered:
		t.Fatalf("an ended exchange delivered %+v", res)
	default:
	}
	h.Finish()
	<-h.Done()
}

// With a short delay, a long exchange gets its actor without anyone
// inspecting the tree.
func TestHostExchangeGetsItsActorAfterTheDelay(t *testing.T) {
	sys, _ := newHostSystem(t)
	sys.requestActorDelay = 5 * time.Millisecond
	h, err := sys.StartHost(tree.HostConfig{Prefix: "http", Kind: tree.KindListener})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	r, err := h.Begin(tree.RequestSpec{Key: "a", ID: jsonrpc.IntID(1), Method: "tools/call", Run: holdJob(started, nil)})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	waitUntil(t, func() bool { return len(hostRequestActors(sys, h)) == 1 },
		func() string { return fmt.Sprintf("request actors: %v, want one", hostRequestActors(sys, h)) })
	r.End()
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 })
	h.Finish()
	<-h.Done()
}

// A cancellation the reader sends after logging its request reaches the
// request even when the message that would book the log comes after the
// cancellation: here no such message is sent at all, as if another
// goroutine's were still on its way.
func TestCancelBooksTheRequestLogFirst(t *testing.T) {
	h := startHeldConn(t, time.Hour)
	h.conn.(*connHandle).reqLog.pending.Store(true)
	h.in.frames <- request(1, "tools/call", `"name":"hold"`)
	wait(t, h.started, "the call's start")
	h.in.frames <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	wait(t, h.ended, "the call's cancellation")
	h.in.frames <- request(2, "ping", "")
	var first struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(h.sink.waitFor(t, 1)[0]), &first); err != nil || string(first.ID) != "2" {
		t.Fatalf("first line is not the ping's answer: %s (%v)", first.ID, err)
	}
	h.close(t)
}

// The end of input drains a request the reader logged but the connection
// has not booked yet (its booking message still on its way, here never
// sent): the connection books it, so the request gets its actor and is
// answered, instead of the connection finishing at once and cancelling it.
func TestEndOfInputBooksTheRequestLogFirst(t *testing.T) {
	h := startHeldConn(t, time.Nanosecond)
	h.conn.(*connHandle).reqLog.pending.Store(true)
	h.in.frames <- request(1, "tools/call", `"name":"gate"`)
	wait(t, h.started, "the call's start")
	h.endInput()
	// Nothing but the end of input can book the request now; booked, it
	// gets its actor at once (the spawn delay is a nanosecond). Unbooked,
	// the connection finishes and cancels the call.
	connDone := func() bool {
		select {
		case <-h.conn.Done():
			return true
		default:
			return false
		}
	}
	waitUntil(t, func() bool { return len(h.requestActors()) > 0 || connDone() },
		func() string { return "the call never got its actor" })
	if connDone() {
		t.Fatal("the connection finished with its call in flight")
	}
	close(h.gate)
	wait(t, h.conn.Done(), "the connection's end")
	if err := h.conn.Err(); err != nil {
		t.Fatalf("connection ended with %v, want a clean drain", err)
	}
	var first struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(h.sink.waitFor(t, 1)[0]), &first); err != nil || string(first.ID) != "1" {
		t.Fatalf("first line is not the call's answer: %s (%v)", first.ID, err)
	}
	h.close(t)
}
