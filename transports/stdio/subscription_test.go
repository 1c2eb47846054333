package stdio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// subRuntime serves one tool, one resource, and subscriptions/listen from
// hub.
func subRuntime(t testing.TB, hb *hub.Hub, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	all := append([]dispatch.Option{
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithSubscriptions(hb),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(req.Arguments, &a)
			return mcp.TextResult(a.Text), nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "file:///r", Name: "r"}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, Text: "r"}}}, nil
		}),
	}, opts...)
	rt, err := dispatch.New(mcp.Implementation{Name: "stdio-sub-test", Version: "1.0.0"}, all...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func listen(id any, notifications map[string]any) []byte {
	return testkit.Request(id, dispatch.MethodListen, map[string]any{"notifications": notifications})
}

// subID returns a notification's _meta subscriptionId as JSON text.
func subID(f *testkit.Frame) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(f.Params, &p)
	return string(p.Meta[mcp.MetaSubscriptionID])
}

// awaitAck waits for the acknowledgement of stream id (JSON text).
func awaitAck(t *testing.T, c *testkit.Client, id string) *testkit.Frame {
	t.Helper()
	f, err := c.Await(context.Background(), func(f *testkit.Frame) bool {
		return f.Method == "notifications/subscriptions/acknowledged" && subID(f) == id
	})
	if err != nil {
		t.Fatalf("no acknowledgement for %s: %v", id, err)
	}
	return f
}

// awaitEvent waits for the nth frame (from 1) of stream id with method.
func awaitEvent(t *testing.T, c *testkit.Client, id, method string, nth int) *testkit.Frame {
	t.Helper()
	// Await scans every frame again after each change: count each once.
	counted, seen := map[*testkit.Frame]bool{}, 0
	f, err := c.Await(context.Background(), func(f *testkit.Frame) bool {
		if !counted[f] && f.Method == method && subID(f) == id {
			counted[f] = true
			seen++
		}
		return counted[f] && seen == nth
	})
	if err != nil {
		t.Fatalf("no %s #%d on stream %s: %v", method, nth, id, err)
	}
	return f
}

// streamFrames returns, in order, the frames that belong to stream id:
// its notifications, its response, and a cancellation naming it.
func streamFrames(c *testkit.Client, id string) []*testkit.Frame {
	var out []*testkit.Frame
	for _, f := range c.Frames() {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(f.Params, &p)
		if subID(f) == id || (f.Method == "" && string(f.ID) == id) || (f.Method == "notifications/cancelled" && string(p.RequestID) == id) {
			out = append(out, f)
		}
	}
	return out
}

// waitSubscriptions waits until the tree shows n subscription actors. An
// actor leaves the tree only after its Stopping has run, which closes its
// source and returns its slots: once this returns, those effects hold.
func waitSubscriptions(t *testing.T, sup *supervisor.Supervisor, n int) {
	t.Helper()
	testkit.WaitTree(t, sup, func(tree *supervisor.Node) bool { return tree.Count("subscription") == n })
}

// awaitAcks waits until n acknowledgements have been written.
func awaitAcks(t *testing.T, c *testkit.Client, n int) {
	t.Helper()
	seen, count := map[*testkit.Frame]bool{}, 0
	if _, err := c.Await(context.Background(), func(f *testkit.Frame) bool {
		if !seen[f] {
			seen[f] = true
			if f.Method == "notifications/subscriptions/acknowledged" {
				count++
			}
		}
		return count >= n
	}); err != nil {
		t.Fatalf("%d of %d acknowledgements: %v", count, n, err)
	}
}

func TestListenAcknowledgesFirstTagsEventsAndFilters(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb))
	srv.Send(t, listen("L", map[string]any{"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": []string{"file:///r"}}))
	ack := awaitAck(t, srv.Client, `"L"`)
	// The server has no prompts: that kind is left out.
	var params struct {
		Notifications map[string]any `json:"notifications"`
	}
	_ = json.Unmarshal(ack.Params, &params)
	if got, _ := json.Marshal(params.Notifications); string(got) != `{"resourceSubscriptions":["file:///r"],"toolsListChanged":true}` {
		t.Fatalf("acknowledgement: %s", ack.Raw)
	}
	// The source was opened before the acknowledgement was written.
	hb.ResourcesListChanged() // not asked for
	if _, err := hb.ResourceUpdated("file:///other"); err != nil {
		t.Fatal(err)
	}
	hb.ToolsListChanged()
	if _, err := hb.ResourceUpdated("file:///r"); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, srv.Client, `"L"`, "notifications/resources/updated", 1)
	got := streamFrames(srv.Client, `"L"`)
	var methods []string
	for _, f := range got {
		methods = append(methods, f.Method)
	}
	want := []string{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed", "notifications/resources/updated"}
	if fmt.Sprint(methods) != fmt.Sprint(want) {
		t.Fatalf("stream frames %v, want %v", methods, want)
	}
	for _, f := range srv.Client.Frames() {
		if f.Method != "" && subID(f) != `"L"` {
			t.Fatalf("a notification without the stream's id: %s", f.Raw)
		}
	}
	if !strings.Contains(string(got[2].Params), `"uri":"file:///r"`) {
		t.Fatalf("update: %s", got[2].Raw)
	}
}

func TestListenDoesNotBlockTheConnection(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb))
	for i := range 3 {
		srv.Send(t, listen(fmt.Sprintf("s%d", i), map[string]any{"toolsListChanged": true}))
	}
	for i := range 3 {
		awaitAck(t, srv.Client, fmt.Sprintf(`"s%d"`, i))
	}
	// Requests keep being read and answered while streams are open.
	for i := range 5 {
		r := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": fmt.Sprint(i)}})
		if r.Error != nil {
			t.Fatalf("call while streams are open: %s", r.Raw)
		}
	}
	// A worker frees its slot just after its response is written: wait
	// for the last call's slot too, then check that the streams hold none.
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool {
		ex := testkit.Find(n, "executor")
		return n.Count("subscription") == 3 && ex != nil && ex.Attrs["running"] == "0"
	})
	conn := testkit.Find(tree, "connection")
	if conn.Attrs["subscriptions"] != "3" {
		t.Fatalf("connection attributes: %v", conn.Attrs)
	}
	for _, ch := range conn.Children {
		if ch.Kind != "subscription" {
			continue
		}
		if ch.Attrs["toolsListChanged"] != "true" || !strings.HasPrefix(ch.Attrs["id"], `"s`) || ch.Attrs["state"] != "idle" || ch.Attrs["age"] == "" {
			t.Fatalf("subscription attributes: %v", ch.Attrs)
		}
	}
	// Open streams hold no execution slot.
	if running, subs := executorCount(t, srv.Sup, "running"), executorCount(t, srv.Sup, "subscriptions"); running != 0 || subs != 3 {
		t.Fatalf("executor: %d running, %d subscriptions", running, subs)
	}
}

func TestListenCapsAndSlotReturn(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb), stdio.WithLimits(stdio.Limits{MaxSubscriptions: 2}))
	srv.Send(t, listen(1, map[string]any{"toolsListChanged": true}))
	srv.Send(t, listen(2, map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, "1")
	awaitAck(t, srv.Client, "2")
	srv.Send(t, listen(3, map[string]any{"toolsListChanged": true}))
	if r := srv.Client.AwaitResponse(t, "3"); r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Subscription limit reached" {
		t.Fatalf("over the connection's cap: %s", r.Raw)
	}
	// A listen reusing an open stream's id is a duplicate.
	srv.Send(t, listen(2, map[string]any{"toolsListChanged": true}))
	// The client cancels stream 1: its slot returns, nothing more is
	// written for it, and its source is closed.
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}))
	waitSubscriptions(t, srv.Sup, 1)
	if st := hb.Stats(); st.Listeners != 1 {
		t.Fatalf("the cancelled stream's source is still attached: %+v", st)
	}
	if n := executorCount(t, srv.Sup, "subscriptions"); n != 1 {
		t.Fatalf("executor subscriptions after a cancel: %d", n)
	}
	srv.Send(t, listen(4, map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, "4")
	for _, f := range streamFrames(srv.Client, "1") {
		if f.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("frame for the cancelled stream: %s", f.Raw)
		}
	}
	// The duplicate was refused while stream 2 stayed open.
	dup, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Method == "" && string(f.ID) == "2" })
	if err != nil || dup.Error == nil || dup.Error.Code != -32600 {
		t.Fatalf("duplicate id: %v %v", dup, err)
	}
}

func TestListenSupervisorCap(t *testing.T) {
	hb := hub.New(hub.Options{})
	rt := subRuntime(t, hb)
	sup := quietSupervisor(t, rt, supervisor.WithLimits(supervisor.Limits{MaxSubscriptions: 1}))
	srv := testkit.StartStdioWith(t, sup, rt)
	srv.Send(t, listen(1, map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, "1")
	srv.Send(t, listen(2, map[string]any{"toolsListChanged": true}))
	if r := srv.Client.AwaitResponse(t, "2"); r.Error == nil || r.Error.Code != -32603 {
		t.Fatalf("over the executor's cap: %s", r.Raw)
	}
	srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}))
	waitSubscriptions(t, srv.Sup, 0)
	if ex := testkit.Find(sup.Tree(), "executor"); ex.Attrs["subscriptions"] != "0" {
		t.Fatalf("the shared slot was not returned: %v", ex.Attrs)
	}
	srv.Send(t, listen(3, map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, "3")
}

// pausableWriter lets a test hold the transport's writes. While paused,
// the first write blocks and its bytes are sent to entered.
type pausableWriter struct {
	w       io.Writer
	mu      sync.Mutex
	paused  bool
	entered chan []byte
	resume  chan struct{}
}

func (p *pausableWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	paused := p.paused
	p.paused = false
	p.mu.Unlock()
	if paused {
		p.entered <- append([]byte(nil), b...)
		<-p.resume
	}
	return p.w.Write(b)
}

func (p *pausableWriter) pause() {
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
}

func TestListenOverflowPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy hub.Overflow
		want   []string // URIs the client receives after the first
	}{
		{hub.DropOldest, []string{"file:///4", "file:///5"}},
		{hub.DropNewest, []string{"file:///2", "file:///3"}},
	} {
		t.Run(fmt.Sprint(tc.policy), func(t *testing.T) {
			hb := hub.New(hub.Options{MaxBuffer: 2, Overflow: tc.policy})
			rt := subRuntime(t, hb)
			sup, err := supervisor.New(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer sup.Close(context.Background())
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			pw := &pausableWriter{w: outW, entered: make(chan []byte), resume: make(chan struct{})}
			client := testkit.NewClient(outR, inW)
			c, err := stdio.Start(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(pw))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				inW.Close()
				if err := waitDone(t, c); err != nil {
					t.Error(err)
				}
				outW.Close()
				client.WaitClosed(t)
				client.CheckFrames(t)
			}()
			uris := []string{"file:///1", "file:///2", "file:///3", "file:///4", "file:///5"}
			var names []any
			for _, u := range uris {
				names = append(names, u)
			}
			if err := client.Send(listen("o", map[string]any{"resourceSubscriptions": names})); err != nil {
				t.Fatal(err)
			}
			awaitAck(t, client, `"o"`)
			testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
				sub := testkit.Find(n, "subscription")
				return sub != nil && sub.Attrs["state"] == "idle"
			})
			// The first event goes out at once; its write is held, so the
			// stream pulls nothing more: the rest wait in the hub's buffer.
			pw.pause()
			r, _ := hb.ResourceUpdated(uris[0])
			if r.Delivered != 1 {
				t.Fatalf("first publish: %+v", r)
			}
			if held := <-pw.entered; !strings.Contains(string(held), "file:///1") {
				t.Fatalf("held write: %s", held)
			}
			var total dispatch.PublishResult
			for _, u := range uris[1:] {
				r, _ := hb.ResourceUpdated(u)
				total.Buffered += r.Buffered
				total.Dropped += r.Dropped
				total.Delivered += r.Delivered
			}
			wantBuffered := 4
			if tc.policy == hub.DropNewest {
				wantBuffered = 2
			}
			if total.Delivered != 0 || total.Dropped != 2 || total.Buffered != wantBuffered {
				t.Fatalf("publishes while the client is slow: %+v", total)
			}
			close(pw.resume)
			last := awaitEvent(t, client, `"o"`, "notifications/resources/updated", 3)
			if !strings.Contains(string(last.Params), tc.want[1]) {
				t.Fatalf("third update: %s", last.Raw)
			}
			var got []string
			for _, f := range streamFrames(client, `"o"`) {
				var p struct {
					URI string `json:"uri"`
				}
				_ = json.Unmarshal(f.Params, &p)
				if p.URI != "" {
					got = append(got, p.URI)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(append([]string{"file:///1"}, tc.want...)) {
				t.Fatalf("received %v", got)
			}
		})
	}
}

func TestHubCompletionEndsStreamsWithResultThenCancelled(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb))
	srv.Send(t, listen("c", map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, `"c"`)
	hb.ToolsListChanged()
	if n := hb.Complete(); n != 1 {
		t.Fatalf("Complete ended %d", n)
	}
	if _, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool { return f.Method == "notifications/cancelled" }); err != nil {
		t.Fatal(err)
	}
	got := streamFrames(srv.Client, `"c"`)
	if len(got) != 4 || got[1].Method != "notifications/tools/list_changed" || got[2].Method != "" || got[3].Method != "notifications/cancelled" {
		var raws []string
		for _, f := range got {
			raws = append(raws, string(f.Raw))
		}
		t.Fatalf("stream frames:\n%s", strings.Join(raws, "\n"))
	}
	if res := string(got[2].Result); !strings.Contains(res, `"resultType":"complete"`) || !strings.Contains(res, `"io.modelcontextprotocol/subscriptionId":"c"`) || !strings.Contains(res, "serverInfo") {
		t.Fatalf("final result: %s", got[2].Raw)
	}
	waitSubscriptions(t, srv.Sup, 0)
	if n := executorCount(t, srv.Sup, "subscriptions"); n != 0 {
		t.Fatalf("slot not returned: %d taken", n)
	}
	if st := hb.Stats(); st.Listeners != 0 {
		t.Fatalf("source not closed: %+v", st)
	}
}

func TestEOFCompletesOpenStreams(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb))
	for _, id := range []string{"a", "b"} {
		srv.Send(t, listen(id, map[string]any{"toolsListChanged": true}))
		awaitAck(t, srv.Client, `"`+id+`"`)
	}
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatalf("Serve after EOF with open streams: %v", err)
	}
	frames := srv.Client.WaitClosed(t)
	for _, id := range []string{`"a"`, `"b"`} {
		got := streamFrames(srv.Client, id)
		if len(got) != 3 || got[1].Method != "" || got[1].Result == nil || got[2].Method != "notifications/cancelled" {
			t.Fatalf("stream %s at EOF: %d frames of %d", id, len(got), len(frames))
		}
	}
	if n := executorCount(t, srv.Sup, "subscriptions"); n != 0 {
		t.Fatalf("slots not returned: %d taken", n)
	}
	if st := hb.Stats(); st.Listeners != 0 {
		t.Fatalf("sources not closed: %+v", st)
	}
}

func TestOwnerDeathClosesStreamsAndReturnsSlots(t *testing.T) {
	hb := hub.New(hub.Options{})
	srv := testkit.StartStdio(t, subRuntime(t, hb))
	for i := range 3 {
		srv.Send(t, listen(i, map[string]any{"toolsListChanged": true}))
		awaitAck(t, srv.Client, fmt.Sprint(i))
	}
	if st := hb.Stats(); st.Listeners != 3 {
		t.Fatalf("hub: %+v", st)
	}
	srv.Cancel() // the connection stops: nothing more is written
	if err := srv.Wait(t); err == nil {
		t.Fatal("a cancelled transport reported a clean end")
	}
	if n := executorCount(t, srv.Sup, "subscriptions"); n != 0 {
		t.Fatalf("slots not returned: %d taken", n)
	}
	if st := hb.Stats(); st.Listeners != 0 {
		t.Fatalf("sources not closed: %+v", st)
	}
	for _, f := range srv.Client.WaitClosed(t) {
		if f.Method == "" || f.Method == "notifications/cancelled" {
			t.Fatalf("written after the stop: %s", f.Raw)
		}
	}
}

func TestListenSourceFailuresReachTheClientAsErrors(t *testing.T) {
	var opened int
	src := sourceFunc(func() (dispatch.Subscription, mcp.SubscriptionFilter, error) {
		opened++
		if opened == 1 {
			return nil, mcp.SubscriptionFilter{}, fmt.Errorf("backend down")
		}
		panic("source exploded")
	})
	srv := testkit.StartStdio(t, subRuntime(t, nil, dispatch.WithSubscriptions(src)))
	for _, id := range []string{"f1", "f2"} {
		srv.Send(t, listen(id, map[string]any{"toolsListChanged": true}))
		if r := srv.Client.AwaitResponse(t, `"`+id+`"`); r.Error == nil || r.Error.Code != -32603 || strings.Contains(r.Error.Message, "down") {
			t.Fatalf("open failure %s: %s", id, r.Raw)
		}
	}
	// The connection is unharmed.
	if r := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "still here"}}); r.Error != nil {
		t.Fatalf("after the failures: %s", r.Raw)
	}
	waitSubscriptions(t, srv.Sup, 0)
	if n := executorCount(t, srv.Sup, "subscriptions"); n != 0 {
		t.Fatalf("slots not returned: %d taken", n)
	}
}

type sourceFunc func() (dispatch.Subscription, mcp.SubscriptionFilter, error)

func (f sourceFunc) OpenSubscription(context.Context, *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	return f()
}

// TestIdleStreamsAreCheap opens many idle streams on one connection and
// checks what each costs: no goroutine, and a bounded heap. The load
// harness opens 10,000 this way.
func TestIdleStreamsAreCheap(t *testing.T) {
	const n = 2000
	hb := hub.New(hub.Options{})
	rt := subRuntime(t, hb)
	sup := quietSupervisor(t, rt, supervisor.WithLimits(supervisor.Limits{MaxSubscriptions: n + 1}))
	srv := testkit.StartStdioWith(t, sup, rt, stdio.WithLimits(stdio.Limits{MaxSubscriptions: n + 1}))
	// One stream first, so everything created once per connection exists.
	srv.Send(t, listen(-1, map[string]any{"toolsListChanged": true}))
	awaitAck(t, srv.Client, "-1")
	runtime.GC()
	heap0, gor0 := int64(heapAlloc()), runtime.NumGoroutine()
	for i := range n {
		srv.Send(t, listen(i, map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///r"}}))
	}
	awaitAcks(t, srv.Client, n+1)
	runtime.GC()
	heap1, gor1 := int64(heapAlloc()), runtime.NumGoroutine()
	perStream := (heap1 - heap0) / n
	t.Logf("%d idle streams: %d B of heap each (the test client's copy of each acknowledgement included); goroutines %d → %d",
		n, perStream, gor0, gor1)
	if perStream > 16<<10 {
		t.Errorf("an idle stream costs %d B of heap, want at most 16 KiB", perStream)
	}
	if gor1-gor0 > 16 {
		t.Errorf("goroutines grew from %d to %d for %d idle streams", gor0, gor1, n)
	}
	if ex := testkit.Find(sup.Tree(), "executor"); ex.Attrs["subscriptions"] != strconv.Itoa(n+1) || ex.Attrs["running"] != "0" {
		t.Fatalf("executor: %v", ex.Attrs)
	}
	// They all still work.
	if r := hb.ToolsListChanged(); r.Matched != n+1 || r.Delivered != n+1 {
		t.Fatalf("publish: %+v", r)
	}
	seen, count := map[*testkit.Frame]bool{}, 0
	if _, err := srv.Client.Await(context.Background(), func(f *testkit.Frame) bool {
		if !seen[f] {
			seen[f] = true
			if f.Method == "notifications/tools/list_changed" {
				count++
			}
		}
		return count == n+1
	}); err != nil {
		t.Fatalf("%d of %d streams got the event: %v", count, n+1, err)
	}
}
