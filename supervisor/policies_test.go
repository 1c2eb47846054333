package supervisor_test

import (
	"context"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// A call waiting under a component's concurrency limit gives its executor
// slot back: with two slots, one call holding the component's only place
// and one waiting for it, a call to another tool still runs at once. The
// tree shows the waiting request, the executor's waiting count and the
// component's policy node with its use.
func TestWaitingCallHoldsNoExecutorSlot(t *testing.T) {
	release := make(chan struct{})
	slow := func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("slow")}}, nil
	}
	fast := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("fast")}}, nil
	}
	rt := quietRuntime(t,
		dispatch.WithTool(mcp.Tool{Name: "slow"}, slow, dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: 4})),
		dispatch.WithTool(mcp.Tool{Name: "fast"}, fast))
	sup, err := supervisor.New(rt, supervisor.WithLimits(supervisor.Limits{MaxConcurrency: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	s := testkit.StartStdioWith(t, sup, rt)
	for id := 101; id <= 102; id++ {
		if err := s.Client.Send(testkit.Request(id, "tools/call", map[string]any{"name": "slow"})); err != nil {
			t.Fatal(err)
		}
	}
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		p := testkit.Find(n, "policy")
		return p != nil && p.Attrs["running"] == "1" && p.Attrs["waiting"] == "1"
	})
	p := testkit.Find(tree, "policy")
	if p.ID != "snodo/policies/tool:slow" || p.Attrs["max_concurrent"] != "1" || p.Attrs["max_waiting"] != "4" || p.Attrs["method"] != "tools/call" {
		t.Fatalf("policy node: %+v", p)
	}
	tree = testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		ex := testkit.Find(n, "executor")
		return ex != nil && ex.Attrs["waiting"] == "1" && ex.Attrs["running"] == "1"
	})
	states := map[string]int{}
	tree.Walk(func(n *supervisor.Node) {
		if n.Kind == "request" {
			states[n.Attrs["state"]]++
		}
	})
	if states["waiting"] != 1 || states["running"] != 1 {
		t.Fatalf("request states %v, want one running and one waiting:\n%s", states, tree)
	}
	if f := s.Client.Call(t, "tools/call", map[string]any{"name": "fast"}); f.Error != nil {
		t.Fatalf("fast call: %s", f.Raw)
	}
	close(release)
	for _, id := range []string{"101", "102"} {
		if f := s.Client.AwaitResponse(t, id); f.Error != nil {
			t.Fatalf("slow call %s: %s", id, f.Raw)
		}
	}
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		p := testkit.Find(n, "policy")
		return p != nil && p.Attrs["running"] == "0" && p.Attrs["waiting"] == "0" && p.Attrs["admitted"] == "2" && p.Attrs["waited"] == "1"
	})
}
