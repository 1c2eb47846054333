package streamablehttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// subscriptionsOpen holds when the tree has n subscription actors.
func subscriptionsOpen(n int) func(*supervisor.Node) bool {
	return func(tree *supervisor.Node) bool {
		return tree.Count(supervisor.KindSubscription) == n
	}
}

func TestListenStreamOpensAtOnceAndHoldsASubscriptionActor(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithKeepAlive(10*time.Millisecond))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp := openStream(t, ctx, ep.url, listenFrame("L1"))
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		checkSSEHeaders(t, resp.Header)
		sr := testkit.NewSSEReader(resp.Body)
		if f := nextEvent(t, sr, "subscriptions/listen"); f.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first event: %s", f.Raw)
		}
		// A quiet stream gets keepalive comments.
		if _, comment, err := sr.Next(); err != nil || !comment {
			t.Fatalf("want a keepalive comment, got comment=%v err=%v", comment, err)
		}
		tree := testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))
		req := testkit.Find(tree, supervisor.KindRequest)
		if req == nil || len(req.Children) != 1 || req.Children[0].Kind != supervisor.KindSubscription || req.Attrs["response"] != "text/event-stream" {
			t.Fatalf("no subscription actor under the request: %+v", tree)
		}
		if n := ep.sup.Executor().Stats().Subscriptions; n != 1 {
			t.Fatalf("%d subscription slots taken, want 1", n)
		}
		// The client goes away: the slot returns and the actors stop.
		cancel()
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			return n.Count(supervisor.KindSubscription) == 0 && n.Count(supervisor.KindRequest) == 0
		})
		if n := ep.sup.Executor().Stats().Subscriptions; n != 0 {
			t.Fatalf("%d subscription slots still taken after the disconnect", n)
		}
	})
}

func TestSubscriptionCapIs503AndSlotsReturn(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		exec := actors.NewExecutor(actors.ExecutorConfig{MaxSubscriptions: 1, Logger: quiet()})
		t.Cleanup(func() { closeExecutor(t, exec) })
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithExecutor(exec))
		ctx, cancel := context.WithCancel(context.Background())
		resp := openStream(t, ctx, ep.url, listenFrame(1))
		nextEvent(t, testkit.NewSSEReader(resp.Body), "subscriptions/listen")

		reply := testkit.PostMCP(t, nil, ep.url, listenFrame(2), nil)
		if reply.Status != 503 || reply.Last().Error == nil || reply.Last().Error.Code != -32603 {
			t.Fatalf("over the cap: %d %s", reply.Status, reply.Body)
		}
		// Ordinary requests do not count against the cap.
		if r := testkit.PostMCP(t, nil, ep.url, discover(3), nil); r.Status != 200 {
			t.Fatalf("discover: %d", r.Status)
		}
		cancel()
		// The subscription actor gives the slot back as it stops.
		testkit.WaitTree(t, ep.sup, subscriptionsOpen(0))
		if n := exec.Stats().Subscriptions; n != 0 {
			t.Fatalf("%d slots taken after the disconnect", n)
		}
		resp = openStream(t, context.Background(), ep.url, listenFrame(4))
		if resp.StatusCode != 200 {
			t.Fatalf("after the slot returned: %d", resp.StatusCode)
		}
		nextEvent(t, testkit.NewSSEReader(resp.Body), "subscriptions/listen")
	})
}

func TestDrainCompletesStreamsAndFinishesRequests(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g))
		stream := openStream(t, context.Background(), ep.url, listenFrame("S"))
		sr := testkit.NewSSEReader(stream.Body)
		nextEvent(t, sr, "subscriptions/listen")
		held := make(chan *testkit.HTTPReply, 1)
		go func() { held <- testkit.PostMCP(t, nil, ep.url, call(9, "hold", nil), nil) }()
		waitFor(t, g.entered)

		drained := make(chan error, 1)
		go func() { drained <- ep.shutdown(context.Background()) }()
		// The stream gets its final result...
		f := nextEvent(t, sr, "subscriptions/listen")
		if string(f.ID) != `"S"` || f.Result == nil {
			t.Fatalf("final event: %s", f.Raw)
		}
		if _, _, err := sr.Next(); err == nil {
			t.Fatal("the stream went on after its final result")
		}
		// ...new requests are refused...
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			x := testkit.Find(n, ep.kind)
			return x != nil && x.Attrs["state"] == "draining"
		})
		// ...and the request in flight finishes.
		close(g.release)
		if r := <-held; r.Status != 200 || r.Last().Error != nil {
			t.Fatalf("in-flight request: %d %s", r.Status, r.Body)
		}
		if err := <-drained; err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return n.Count(ep.kind) == 0 })
	})
}

func TestDrainRefusesNewRequests(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g))
		// A connection opened before the drain, used after it starts.
		c := dial(t, ep.addr)
		held := make(chan *testkit.HTTPReply, 1)
		go func() { held <- testkit.PostMCP(t, nil, ep.url, call(1, "hold", nil), nil) }()
		waitFor(t, g.entered)
		drained := make(chan error, 1)
		go func() { drained <- ep.shutdown(context.Background()) }()
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			x := testkit.Find(n, ep.kind)
			return x != nil && x.Attrs["state"] == "draining"
		})
		frame := discover(2)
		if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame))); err != nil {
			t.Fatal(err)
		}
		resp := c.readResponse(t)
		reply := testkit.ReadHTTPReply(t, resp, "server/discover")
		if reply.Status != http.StatusServiceUnavailable || reply.Last().Error == nil || reply.Last().Error.Code != -32603 || !resp.Close {
			t.Fatalf("request during the drain: %d close=%v %s", reply.Status, resp.Close, reply.Body)
		}
		close(g.release)
		<-held
		if err := <-drained; err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	})
}
