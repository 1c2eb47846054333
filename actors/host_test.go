package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

func newHostSystem(t *testing.T) (*System, *Executor) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	sys, err := NewSystem(SystemConfig{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	exec := NewExecutor(ExecutorConfig{Logger: quiet})
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
		if n := sys.Registered(); n != 0 {
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
	sys, exec := newHostSystem(t)
	h, err := sys.StartHost(HostConfig{Prefix: "http", Kind: KindListener, Executor: exec,
		Attrs: func(a map[string]string) { a["addr"] = "test" }})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	results := make(chan Result, 1)
	var released atomic.Int64
	r, err := h.Begin(RequestSpec{
		Key: "k", ID: jsonrpc.IntID(7), Method: "subscriptions/listen", Peer: "127.0.0.1:1",
		Subscription: func() { released.Add(1) },
		Run:          holdJob(started, release), Done: func(res Result) { results <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	r.SetStreaming()
	tree := waitTree(t, sys, func(n *Node) bool { return n.Count(KindSubscription) == 1 })
	var host *Node
	tree.Walk(func(n *Node) {
		if n.Kind == KindListener {
			host = n
		}
	})
	if host == nil || host.Attrs["addr"] != "test" || len(host.Children) != 1 {
		t.Fatalf("host node: %+v", tree)
	}
	req := host.Children[0]
	if req.Kind != KindRequest || req.Attrs["id"] != "7" || req.Attrs["peer"] != "127.0.0.1:1" || req.Attrs["response"] != "text/event-stream" {
		t.Fatalf("request node: %+v", req)
	}
	if _, err := h.Begin(RequestSpec{Key: "k", Run: holdJob(started, release)}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate key: %v", err)
	}
	close(release)
	if res := <-results; res.Status != Completed || res.Value != "done" {
		t.Fatalf("result %+v", res)
	}
	r.End()
	r.End()
	waitTree(t, sys, func(n *Node) bool { return n.Count(KindRequest) == 0 && n.Count(KindSubscription) == 0 })
	// End and the subscription actor both give the slot back; the
	// release is idempotent in the executor, so a counter sees both.
	if released.Load() == 0 {
		t.Fatal("the subscription slot was never released")
	}
}

func TestHostFinishCancelsWorkAndRunsHalt(t *testing.T) {
	sys, exec := newHostSystem(t)
	ran, halted := make(chan struct{}), make(chan struct{})
	h, err := sys.StartHost(HostConfig{Prefix: "handler", Kind: KindHandler, Executor: exec,
		Run:  func() { close(ran); <-halted },
		Halt: func() { close(halted) }})
	if err != nil {
		t.Fatal(err)
	}
	<-ran
	started := make(chan struct{}, 1)
	delivered := make(chan Result, 1)
	if _, err := h.Begin(RequestSpec{ID: jsonrpc.IntID(1), Run: holdJob(started, nil), Done: func(r Result) { delivered <- r }}); err != nil {
		t.Fatal(err)
	}
	<-started
	waitTree(t, sys, func(n *Node) bool { return n.Count(KindRequest) == 1 })
	h.Finish()
	h.Finish()
	<-h.Done()
	<-halted
	if h.Context().Err() == nil {
		t.Fatal("the host's context is still live")
	}
	if _, err := h.Begin(RequestSpec{Run: holdJob(started, nil)}); !errors.Is(err, ErrScopeClosed) {
		t.Fatalf("Begin after Finish: %v", err)
	}
	waitTree(t, sys, func(n *Node) bool { return n.Count(KindHandler) == 0 && n.Count(KindRequest) == 0 })
	select {
	case r := <-delivered:
		t.Fatalf("cancelled work delivered %+v", r)
	default:
	}
	if st := exec.Stats(); st.Cancelled != 1 {
		t.Fatalf("stats %+v", st)
	}
}
