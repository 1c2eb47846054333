package streamablehttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// subscriptionsOpen holds when the tree has n subscription actors.
func subscriptionsOpen(n int) func(*supervisor.Node) bool {
	return func(tree *supervisor.Node) bool {
		return tree.Count("subscription") == n
	}
}

func TestListenStreamOpensAtOnceAndHoldsASubscriptionActor(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g), streamablehttp.WithLimits(streamablehttp.Limits{KeepAlive: 10 * time.Millisecond}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp := openStream(t, ctx, ep.url, listenFrame("L1"))
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		checkSSEHeaders(t, resp.Header)
		sr := testfixture.NewSSEReader(resp.Body)
		if f := nextEvent(t, sr, "subscriptions/listen"); f.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first event: %s", f.Raw)
		}
		// A quiet stream gets keepalive comments.
		if _, comment, err := sr.Next(); err != nil || !comment {
			t.Fatalf("want a keepalive comment, got comment=%v err=%v", comment, err)
		}
		tree := testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))
		req := testkit.Find(tree, "request")
		if req == nil || len(req.Children) != 1 || req.Children[0].Kind != "subscription" || req.Attrs["response"] != "text/event-stream" {
			t.Fatalf("no subscription actor under the request: %+v", tree)
		}
		if n := executorCount(t, ep.sup, "subscriptions"); n != 1 {
			t.Fatalf("%d subscription slots taken, want 1", n)
		}
		// The client goes away: the slot returns and the actors stop.
		cancel()
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			return n.Count("subscription") == 0 && n.Count("request") == 0
		})
		if n := executorCount(t, ep.sup, "subscriptions"); n != 0 {
			t.Fatalf("%d subscription slots still taken after the disconnect", n)
		}
		if n := g.hub.Stats().Listeners; n != 0 {
			t.Fatalf("the source of a disconnected stream is still open (%d listeners)", n)
		}
	})
}

func TestSubscriptionCapIs503AndSlotsReturn(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		rt := testRuntime(t, nil)
		sup := limitedSupervisor(t, rt, supervisor.Limits{MaxSubscriptions: 1})
		ep := tg.startWith(t, sup, rt)
		ctx, cancel := context.WithCancel(context.Background())
		resp := openStream(t, ctx, ep.url, listenFrame(1))
		nextEvent(t, testfixture.NewSSEReader(resp.Body), "subscriptions/listen")
		// The acknowledgement can reach the client before the host has
		// started the stream's subscription actor: wait for the actor, so
		// that its absence below means it stopped.
		testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))

		reply := testfixture.PostMCP(t, nil, ep.url, listenFrame(2), nil)
		if reply.Status != 503 || reply.Last().Error == nil || reply.Last().Error.Code != -32603 {
			t.Fatalf("over the cap: %d %s", reply.Status, reply.Body)
		}
		// Ordinary requests do not count against the cap.
		if r := testfixture.PostMCP(t, nil, ep.url, discover(3), nil); r.Status != 200 {
			t.Fatalf("discover: %d", r.Status)
		}
		cancel()
		// The subscription actor gives the slot back as it stops: once it
		// and its request actor are gone (and no actor was too slow to
		// describe itself, which would hide it), the slot is free.
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			return n.Count("subscription") == 0 && n.Count("request") == 0 &&
				n.Count("unresponsive") == 0
		})
		if n := executorCount(t, sup, "subscriptions"); n != 0 {
			t.Fatalf("%d slots taken after the disconnect", n)
		}
		resp = openStream(t, context.Background(), ep.url, listenFrame(4))
		if resp.StatusCode != 200 {
			t.Fatalf("after the slot returned: %d", resp.StatusCode)
		}
		nextEvent(t, testfixture.NewSSEReader(resp.Body), "subscriptions/listen")
	})
}

func TestDrainCompletesStreamsAndFinishesRequests(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g))
		stream := openStream(t, context.Background(), ep.url, listenFrame("S"))
		sr := testfixture.NewSSEReader(stream.Body)
		nextEvent(t, sr, "subscriptions/listen")
		held := make(chan *testfixture.HTTPReply, 1)
		go func() { held <- testfixture.PostMCP(t, nil, ep.url, call(9, "hold", nil), nil) }()
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
		held := make(chan *testfixture.HTTPReply, 1)
		go func() { held <- testfixture.PostMCP(t, nil, ep.url, call(1, "hold", nil), nil) }()
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
		reply := testfixture.ReadHTTPReply(t, resp, "server/discover")
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

// meta returns a notification's _meta subscriptionId (JSON text).
func subscriptionID(f *testkit.Frame) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(f.Params, &p)
	return string(p.Meta[mcp.MetaSubscriptionID])
}

func TestListenAcknowledgesTagsFiltersAndCompletes(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g))
		resp := openStream(t, context.Background(), ep.url, listenFilter("L", map[string]any{
			"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true,
		}))
		sr := testfixture.NewSSEReader(resp.Body)
		ack := nextEvent(t, sr, "subscriptions/listen")
		var p struct {
			Notifications map[string]any `json:"notifications"`
		}
		_ = json.Unmarshal(ack.Params, &p)
		// The test server offers tools only: the other kinds are left out.
		if ack.Method != "notifications/subscriptions/acknowledged" || subscriptionID(ack) != `"L"` || len(p.Notifications) != 1 || p.Notifications["toolsListChanged"] != true {
			t.Fatalf("acknowledgement: %s", ack.Raw)
		}
		g.hub.PromptsListChanged()
		g.hub.ResourcesListChanged()
		if r := g.hub.ToolsListChanged(); r.Matched != 1 {
			t.Fatalf("publish: %+v", r)
		}
		ev := nextEvent(t, sr, "subscriptions/listen")
		if ev.Method != "notifications/tools/list_changed" || subscriptionID(ev) != `"L"` {
			t.Fatalf("event: %s", ev.Raw)
		}
		// The tree shows the stream's filter.
		tree := testkit.WaitTree(t, ep.sup, subscriptionsOpen(1))
		sub := testkit.Find(tree, "subscription")
		if sub.Attrs["toolsListChanged"] != "true" || sub.Attrs["id"] != `"L"` || sub.Attrs["events"] != "1" {
			t.Fatalf("subscription attributes: %v", sub.Attrs)
		}
		// Completion ends the stream with its final result.
		if n := g.hub.Complete(); n != 1 {
			t.Fatalf("Complete ended %d", n)
		}
		final := nextEvent(t, sr, "subscriptions/listen")
		if string(final.ID) != `"L"` || !strings.Contains(string(final.Result), `"io.modelcontextprotocol/subscriptionId":"L"`) {
			t.Fatalf("final: %s", final.Raw)
		}
		if _, _, err := sr.Next(); err == nil {
			t.Fatal("the stream went on after its final result")
		}
		testkit.WaitTree(t, ep.sup, subscriptionsOpen(0))
		if n := executorCount(t, ep.sup, "subscriptions"); n != 0 {
			t.Fatalf("%d slots still taken", n)
		}
	})
}

func TestListenHoldsNoExecutionSlot(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		rt := testRuntime(t, nil)
		sup := limitedSupervisor(t, rt, supervisor.Limits{MaxConcurrency: 1, MaxQueue: -1})
		ep := tg.startWith(t, sup, rt)
		for i := range 3 {
			resp := openStream(t, context.Background(), ep.url, listenFrame(i))
			nextEvent(t, testfixture.NewSSEReader(resp.Body), "subscriptions/listen")
		}
		if running, subs := executorCount(t, sup, "running"), executorCount(t, sup, "subscriptions"); running != 0 || subs != 3 {
			t.Fatalf("executor with 3 open streams: %d running, %d subscriptions", running, subs)
		}
		// The executor's one slot is free for calls.
		if r := testfixture.PostMCP(t, nil, ep.url, call(9, "echo", map[string]any{"text": "x"}), nil); r.Status != 200 || r.Last().Error != nil {
			t.Fatalf("call with streams open: %d %s", r.Status, r.Body)
		}
	})
}

func TestListenSlotReturnsWhenTheOwnerStops(t *testing.T) {
	g := newGate()
	rt := testRuntime(t, g)
	// The tree's own sink records the subscription slots, which outlive
	// the tree's snapshot.
	events := &testfixture.Events{}
	sup, err := supervisor.New(rt, supervisor.WithInstrumentation(events))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt, streamablehttp.WithSupervisor(sup))
	_, stream := h.Handle(context.Background(), plainRequest(listenFrame("o"), "10.0.0.1:1"))
	if stream == nil {
		t.Fatal("no stream")
	}
	if _, err := stream.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, n := g.hub.Stats(), executorCount(t, sup, "subscriptions"); st.Listeners != 1 || n != 1 {
		t.Fatalf("open: hub %+v, %d subscription slots", st, n)
	}
	next := make(chan error, 1)
	go func() {
		_, err := stream.Next(context.Background())
		next <- err
	}()
	// The tree the handler lives in is closed while the stream is open
	// and idle (no drain): its subscription actor closes the source and
	// returns the slot, and the goroutine writing the stream learns it is
	// over.
	if err := sup.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
	if err := <-next; !errors.Is(err, streamablehttp.ErrShuttingDown) {
		t.Fatalf("Next after the owner stopped: %v", err)
	}
	slots := testfixture.EventsOf[instrumentation.SubscriptionEvent](events)
	if st := g.hub.Stats(); st.Listeners != 0 || len(slots) != 2 || slots[1].Kind != instrumentation.SubscriptionClosed || slots[1].Open != 0 {
		t.Fatalf("after the owner stopped: hub %+v, slot events %+v", st, slots)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestListenOverflowThroughHandle drives a stream through the host-neutral
// API, so the test decides when the writer asks for the next event: the
// source is pulled only then, and meanwhile the hub's buffer applies its
// policy.
func TestListenOverflowThroughHandle(t *testing.T) {
	for _, tc := range []struct {
		policy hub.Overflow
		want   string
	}{
		{hub.DropOldest, "file:///4 file:///5"},
		{hub.DropNewest, "file:///1 file:///2"},
	} {
		t.Run(fmt.Sprint(tc.policy), func(t *testing.T) {
			hb := hub.New(hub.Options{MaxBuffer: 2, Overflow: tc.policy})
			rt, err := dispatch.New(mcp.Implementation{Name: "overflow", Version: "1"}, dispatch.WithLogger(quiet()),
				dispatch.WithSubscriptions(hb),
				dispatch.WithResource(mcp.Resource{URI: "file:///1", Name: "one"}, func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return nil, dispatch.ErrResourceNotFound
				}))
			if err != nil {
				t.Fatal(err)
			}
			h := newHandler(t, rt)
			t.Cleanup(func() { _ = h.Close() })
			var uris []any
			for i := 1; i <= 5; i++ {
				uris = append(uris, fmt.Sprintf("file:///%d", i))
			}
			resp, stream := h.Handle(context.Background(), plainRequest(listenFilter(1, map[string]any{"resourceSubscriptions": uris}), ""))
			if stream == nil {
				t.Fatalf("no stream: %+v", resp)
			}
			defer stream.Close()
			readEvent := func() *testkit.Frame {
				t.Helper()
				chunk, err := stream.Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				data, _ := strings.CutPrefix(strings.TrimSpace(string(chunk)), "data: ")
				return testfixture.CheckFrame(t, []byte(data), "subscriptions/listen")
			}
			readEvent() // acknowledgement
			var total dispatch.PublishResult
			for _, u := range uris {
				r, err := hb.ResourceUpdated(u.(string))
				if err != nil {
					t.Fatal(err)
				}
				total.Matched += r.Matched
				total.Buffered += r.Buffered
				total.Dropped += r.Dropped
			}
			wantBuffered := 5
			if tc.policy == hub.DropNewest {
				wantBuffered = 2
			}
			if total.Matched != 5 || total.Dropped != 3 || total.Buffered != wantBuffered {
				t.Fatalf("publish totals: %+v", total)
			}
			var got []string
			for range 2 {
				var p struct {
					URI string `json:"uri"`
				}
				_ = json.Unmarshal(readEvent().Params, &p)
				got = append(got, p.URI)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("received %v, want %s", got, tc.want)
			}
		})
	}
}

func TestListenRefusalsAreStatuses(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		many := make([]string, 1000+1)
		for i := range many {
			many[i] = fmt.Sprintf("file:///%d", i)
		}
		for name, frame := range map[string][]byte{
			"no filter":       testkit.Request(1, dispatch.MethodListen, nil),
			"over 1,000 URIs": listenFilter(2, map[string]any{"resourceSubscriptions": many}),
		} {
			r := testfixture.PostMCP(t, nil, ep.url, frame, nil)
			if r.Status != http.StatusBadRequest || r.Last().Error == nil || r.Last().Error.Code != -32602 {
				t.Fatalf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		if n := executorCount(t, ep.sup, "subscriptions"); n != 0 {
			t.Fatalf("a refused listen holds %d slots", n)
		}
	})
}
