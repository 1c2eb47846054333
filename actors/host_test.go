package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

func newHostSystem(t *testing.T) (*system, *executor.Executor) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	exec := executor.New(executor.Config{Logger: quiet})
	sys, err := newSystem(tree.SystemConfig{Logger: quiet, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sys.Close(ctx); err != nil {
			t.Error(err)
		}
		if err := exec.Close(ctx); err != nil {
			t.Error(err)
		}
		if n := sys.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
		if n := sys.registered(); n != 0 {
			t.Errorf("%d actors still registered", n)
		}
	})
	return sys, exec
}

// holdJob blocks until released or cancelled.
func holdJob(started chan<- struct{}, release <-chan struct{}) func(context.Context) any {
	return func(ctx context.Context) any {
		started <- struct{}{}
		select {
		case <-release:
			return "done"
		case <-ctx.Done():
			return nil
		}
	}
}

func TestHostRunsEachExchangeAsARequestActor(t *testing.T) {
	sys, _ := newHostSystem(t)
	h, err := sys.StartHost(tree.HostConfig{Prefix: "http", Kind: tree.KindListener,
		Attrs: func(a map[string]string) { a["addr"] = "test" }})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	results := make(chan executor.Result, 1)
	r, err := h.Begin(tree.RequestSpec{
		Key: "k", ID: jsonrpc.IntID(7), Method: "tools/call", Peer: "127.0.0.1:1",
		Run: holdJob(started, release), Done: func(res executor.Result) { results <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	r.SetStreaming()
	snap := waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 1 })
	var host *tree.Node
	snap.Walk(func(n *tree.Node) {
		if n.Kind == tree.KindListener {
			host = n
		}
	})
	if host == nil || host.Attrs["addr"] != "test" || len(host.Children) != 1 {
		t.Fatalf("host node: %+v", snap)
	}
	req := host.Children[0]
	if req.Kind != tree.KindRequest || req.Attrs["id"] != "7" || req.Attrs["peer"] != "127.0.0.1:1" || req.Attrs["response"] != "text/event-stream" || len(req.Children) != 0 {
		t.Fatalf("request node: %+v", req)
	}
	if _, err := h.Begin(tree.RequestSpec{Key: "k", Run: holdJob(started, release)}); !errors.Is(err, executor.ErrDuplicate) {
		t.Fatalf("duplicate key: %v", err)
	}
	if _, err := h.BeginStream(tree.StreamSpec{Key: "k"}); !errors.Is(err, executor.ErrDuplicate) {
		t.Fatalf("a stream with a job's key: %v", err)
	}
	close(release)
	if res := <-results; res.Status != executor.Completed || res.Value != "done" {
		t.Fatalf("result %+v", res)
	}
	r.End()
	r.End()
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 })
}

// streamSpec is a StreamSpec counting its releases and closes.
func streamSpec(key any) (tree.StreamSpec, *atomic.Int64, *atomic.Int64) {
	var released, closed atomic.Int64
	return tree.StreamSpec{
		Key: key, ID: jsonrpc.StringID("L"), Method: "subscriptions/listen", Peer: "127.0.0.1:2",
		Describe: func() map[string]string { return map[string]string{"toolsListChanged": "true"} },
		Release:  func() { released.Add(1) },
		Close:    func() { closed.Add(1) },
	}, &released, &closed
}

func TestHostStreamHoldsNoExecutionSlot(t *testing.T) {
	sys, exec := newHostSystem(t)
	h, err := sys.StartHost(tree.HostConfig{Prefix: "http", Kind: tree.KindListener})
	if err != nil {
		t.Fatal(err)
	}
	spec, released, closed := streamSpec("s")
	r, err := h.BeginStream(spec)
	if err != nil {
		t.Fatal(err)
	}
	snap := waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindSubscription) == 1 })
	req := findKind(snap, tree.KindRequest)
	if req == nil || len(req.Children) != 1 || req.Attrs["response"] != "text/event-stream" || req.Attrs["deadline"] != "" {
		t.Fatalf("request node: %+v", req)
	}
	if sub := req.Children[0]; sub.Kind != tree.KindSubscription || sub.Attrs["toolsListChanged"] != "true" || sub.Attrs["age"] == "" {
		t.Fatalf("subscription node: %+v", sub)
	}
	if st := exec.Stats(); st.Running != 0 || st.Submitted != 0 {
		t.Fatalf("a stream took an execution slot: %+v", st)
	}
	// Its key is taken while it is open, for jobs and streams alike.
	if _, err := h.Begin(tree.RequestSpec{Key: "s", Run: func(context.Context) any { return nil }}); !errors.Is(err, executor.ErrDuplicate) {
		t.Fatalf("a job with a stream's key: %v", err)
	}
	r.End()
	r.End()
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 && n.Count(tree.KindSubscription) == 0 })
	if released.Load() != 1 || closed.Load() != 1 {
		t.Fatalf("released %d, closed %d; want once each", released.Load(), closed.Load())
	}
	// The key is free again.
	if r, err := h.BeginStream(tree.StreamSpec{Key: "s"}); err != nil {
		t.Fatalf("key not released: %v", err)
	} else {
		r.End()
	}
}

func TestHostStreamReleasedWhenItsOwnerStops(t *testing.T) {
	sys, _ := newHostSystem(t)
	h, err := sys.StartHost(tree.HostConfig{Prefix: "http", Kind: tree.KindListener})
	if err != nil {
		t.Fatal(err)
	}
	spec, released, closed := streamSpec(nil)
	if _, err := h.BeginStream(spec); err != nil {
		t.Fatal(err)
	}
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindSubscription) == 1 })
	// The host stops (its transport closed) without the exchange ending:
	// the subscription actor still releases the stream.
	h.Finish()
	<-h.Done()
	if released.Load() != 1 || closed.Load() != 1 {
		t.Fatalf("released %d, closed %d after the owner stopped", released.Load(), closed.Load())
	}
	if _, err := h.BeginStream(tree.StreamSpec{}); !errors.Is(err, executor.ErrScopeClosed) {
		t.Fatalf("BeginStream after Finish: %v", err)
	}
}

func findKind(snap *tree.Node, k tree.Kind) *tree.Node {
	var found *tree.Node
	snap.Walk(func(n *tree.Node) {
		if found == nil && n.Kind == k {
			found = n
		}
	})
	return found
}

func TestHostFinishCancelsWorkAndRunsHalt(t *testing.T) {
	sys, exec := newHostSystem(t)
	ran, halted := make(chan struct{}), make(chan struct{})
	h, err := sys.StartHost(tree.HostConfig{Prefix: "handler", Kind: tree.KindHandler,
		Run:  func() { close(ran); <-halted },
		Halt: func() { close(halted) }})
	if err != nil {
		t.Fatal(err)
	}
	<-ran
	started := make(chan struct{}, 1)
	delivered := make(chan executor.Result, 1)
	if _, err := h.Begin(tree.RequestSpec{ID: jsonrpc.IntID(1), Run: holdJob(started, nil), Done: func(r executor.Result) { delivered <- r }}); err != nil {
		t.Fatal(err)
	}
	<-started
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 1 })
	h.Finish()
	h.Finish()
	<-h.Done()
	<-halted
	if h.Context().Err() == nil {
		t.Fatal("the host's context is still live")
	}
	if _, err := h.Begin(tree.RequestSpec{Run: holdJob(started, nil)}); !errors.Is(err, executor.ErrScopeClosed) {
		t.Fatalf("Begin after Finish: %v", err)
	}
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindHandler) == 0 && n.Count(tree.KindRequest) == 0 })
	select {
	case r := <-delivered:
		t.Fatalf("cancelled work delivered %+v", r)
	default:
	}
	if st := exec.Stats(); st.Cancelled != 1 {
		t.Fatalf("stats %+v", st)
	}
}
