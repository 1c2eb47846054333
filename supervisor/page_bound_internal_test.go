package supervisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/sse"
)

// bigTree is a tree of the shape a busy HTTP server has: the executor, a
// handler host with 100,000 requests in flight, each answering with an
// open subscription stream (200,003 nodes in all).
func bigTree(subs int) *Node {
	host := &Node{Kind: kindHandler, ID: "snodo/handler$1", Attrs: map[string]string{"requests": fmt.Sprint(subs)}}
	host.Children = make([]*Node, subs)
	for i := range subs {
		id := fmt.Sprintf("snodo/handler$1/req$%d", i+1)
		// Request i is i ms old: the oldest has the highest number.
		age := (time.Duration(i) * time.Millisecond).String()
		host.Children[i] = &Node{Kind: kindRequest, ID: id,
			Attrs: map[string]string{"method": "subscriptions/listen", "id": fmt.Sprint(i + 1), "age": age, "peer": "127.0.0.1:4000"},
			Children: []*Node{{Kind: kindSubscription, ID: id + "/sub$1",
				Attrs: map[string]string{"toolsListChanged": "true", "resourceSubscriptions": "file:///a,file:///b", "age": age, "state": "idle"}}},
		}
	}
	return &Node{Kind: kindSupervisor, ID: "snodo", Children: []*Node{
		host,
		{Kind: kindExecutor, ID: "snodo/executor", Attrs: map[string]string{"running": "0", "queued": "0", "subscriptions": fmt.Sprint(subs)}},
	}}
}

// The payload bounds the page states: with the default limits a view
// holds at most 500 nodes, whose encoding stays under 256 KiB whatever
// the size of the tree.
const maxViewBytes = 256 << 10

func TestPageOfAHundredThousandSubscriptionsIsBounded(t *testing.T) {
	const subs = 100_000
	tree := bigTree(subs)
	var snaps atomic.Int64
	h := newDebugHandler(handlerConfig{}, func() *Node { snaps.Add(1); return tree }, nil, nil)

	// The static page.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/debug/tree", nil)
	req.Header.Set("Accept", "text/html")
	h.ServeHTTP(rec, req)
	page := rec.Body.Bytes()
	if rec.Code != 200 || len(page) > maxViewBytes+len(pageCSS)+len(pageJS)+4<<10 {
		t.Fatalf("page: %d, %d bytes (bound %d)", rec.Code, len(page), maxViewBytes)
	}
	if n := bytes.Count(page, []byte(`data-kind="subscription"`)); n == 0 || n > defaultPageMaxNodes {
		t.Fatalf("the page shows %d subscriptions", n)
	}

	// The view itself: counts of the whole tree, a stated cap per
	// level, the oldest first, what is left out counted by kind.
	v := summarize(tree, time.Now(), defaultPageMaxChildren, defaultPageMaxNodes, "")
	data, _ := json.Marshal(v)
	if len(data) > maxViewBytes {
		t.Fatalf("view of %d bytes", len(data))
	}
	if v.Nodes != 2*subs+3 || v.Counts[kindSubscription] != subs || v.Counts[kindRequest] != subs || v.Shown > defaultPageMaxNodes {
		t.Fatalf("view: nodes %d shown %d counts %v", v.Nodes, v.Shown, v.Counts)
	}
	hostView := v.Root.Children[0]
	if hostView.Kind != kindHandler || hostView.Total != subs || len(hostView.Children) != defaultPageMaxChildren ||
		hostView.Omitted != subs-defaultPageMaxChildren || hostView.OmittedKinds[kindRequest] != subs-defaultPageMaxChildren {
		t.Fatalf("host: total %d shown %d omitted %d %v", hostView.Total, len(hostView.Children), hostView.Omitted, hostView.OmittedKinds)
	}
	for i, c := range hostView.Children {
		if want := fmt.Sprintf("snodo/handler$1/req$%d", subs-i); c.ID != want {
			t.Fatalf("child %d is %s, want the oldest first (%s)", i, c.ID, want)
		}
		if len(c.Children) != 1 || c.Children[0].Kind != kindSubscription {
			t.Fatalf("request %s shows no subscription", c.ID)
		}
	}
	// A search reaches nodes beyond the cap, still bounded.
	v = summarize(tree, time.Now(), defaultPageMaxChildren, defaultPageMaxNodes, "handler$1/req$77/")
	if v.Shown != 4 || v.Root.Children[0].Children[0].ID != "snodo/handler$1/req$77" {
		data, _ = json.Marshal(v.Root)
		t.Fatalf("search: %d shown: %s", v.Shown, data)
	}
}

// fakeClock is the feed's clock in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestFeedCoalesces(t *testing.T) {
	tree := bigTree(1000)
	var stats atomic.Pointer[executor.Stats]
	stats.Store(&executor.Stats{})
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	f := &feed{snapshot: func() *Node { return tree }, stats: func() executor.Stats { return *stats.Load() }, now: clock.now,
		limits: PageLimits{}.withDefaults()}
	bump := func() { s := *stats.Load(); s.Submitted++; stats.Store(&s) }

	// Within one interval, however much the executor moves and however
	// many streams ask, one snapshot.
	for range 1000 {
		bump()
		f.latest(false)
	}
	if n := f.snapshots.Load(); n != 1 {
		t.Fatalf("%d snapshots within one interval", n)
	}
	// An interval later: one more, as the executor moved after the
	// first.
	clock.advance(defaultPageInterval)
	if fr := f.latest(false); fr.seq != 2 || f.snapshots.Load() != 2 {
		t.Fatalf("after a change: seq %d, %d snapshots", fr.seq, f.snapshots.Load())
	}
	// Another interval with nothing moved: none.
	clock.advance(defaultPageInterval)
	if fr := f.latest(false); fr.seq != 2 || f.snapshots.Load() != 2 {
		t.Fatalf("a snapshot with nothing changed: seq %d, %d snapshots", fr.seq, f.snapshots.Load())
	}
	// A page being loaded wants what moved without the executor too,
	// but no more than once per interval.
	if fr := f.latest(true); fr.seq != 3 || f.snapshots.Load() != 3 {
		t.Fatalf("a page load after the interval: seq %d, %d snapshots", fr.seq, f.snapshots.Load())
	}
	if fr := f.latest(true); fr.seq != 3 || f.snapshots.Load() != 3 {
		t.Fatalf("a page load within the interval: seq %d, %d snapshots", fr.seq, f.snapshots.Load())
	}
	// Nothing moved but the refresh period passed: one more.
	clock.advance(defaultPageRefresh)
	if fr := f.latest(false); fr.seq != 4 || f.snapshots.Load() != 4 {
		t.Fatalf("after the refresh period: seq %d, %d snapshots", fr.seq, f.snapshots.Load())
	}

	// Concurrent streams share the snapshot being taken.
	release := make(chan struct{})
	entered := make(chan struct{}, 16)
	f.snapshot = func() *Node { entered <- struct{}{}; <-release; return tree }
	clock.advance(defaultPageRefresh)
	var wg sync.WaitGroup
	seqs := make([]int64, 8)
	for i := range seqs {
		wg.Go(func() { seqs[i] = f.latest(false).seq })
	}
	<-entered
	close(release)
	wg.Wait()
	if n := f.snapshots.Load(); n != 5 || len(entered) != 0 {
		t.Fatalf("%d snapshots for 8 concurrent streams", n-4)
	}
	for _, s := range seqs {
		if s != 5 {
			t.Fatalf("a stream got seq %d, want the shared 5", s)
		}
	}
}

// While pages are open on a server whose executor never stops moving,
// the work done for them is one snapshot per interval, shared: here the
// interval is longer than the test, so the streams get one view each
// and the tree is walked once, whatever the traffic.
func TestOpenPagesCostOneSnapshotPerInterval(t *testing.T) {
	tree := bigTree(100_000)
	var snaps atomic.Int64
	var moved atomic.Int64
	stats := func() executor.Stats { return executor.Stats{Submitted: moved.Add(1)} }
	done := make(chan struct{})
	var closeOnce sync.Once
	closeDone := func() { closeOnce.Do(func() { close(done) }) }
	h := newDebugHandler(handlerConfig{limits: PageLimits{Interval: time.Hour, Refresh: time.Hour, MaxStreams: 3}},
		func() *Node { snaps.Add(1); return tree }, stats, done)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer closeDone() // before the server closes, should the test fail with streams open

	type stream struct {
		resp *http.Response
		r    *sse.Reader
	}
	var streams []stream
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		streams = append(streams, stream{resp, sse.NewReader(resp.Body, maxViewBytes)})
	}
	// The fourth is refused: the number of open streams is bounded.
	resp, err := http.Get(srv.URL + "?format=events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream over the cap: %d", resp.StatusCode)
	}
	for _, s := range streams {
		ev, err := s.r.Next()
		if err != nil || ev.Type != "tree" || ev.ID != "1" {
			t.Fatalf("first event: %+v %v", ev, err)
		}
		var v pageView
		if err := json.Unmarshal(ev.Data, &v); err != nil || v.Counts[kindSubscription] != 100_000 || v.Shown > defaultPageMaxNodes {
			t.Fatalf("event view: %v, %d shown", err, v.Shown)
		}
	}
	// Each stream checks for changes once per interval: an hour here,
	// so until the streams end, the executor's movement costs nothing
	// more, and pages loaded meanwhile share the same snapshot. The
	// supervisor closing ends the streams.
	for range 10_000 {
		stats()
	}
	for range 5 {
		req := httptest.NewRequest(http.MethodGet, "/?format=html", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`data-kind="subscription"`)) {
			t.Fatalf("page: %d", rec.Code)
		}
	}
	closeDone()
	for _, s := range streams {
		if ev, err := s.r.Next(); err == nil {
			t.Fatalf("a second event: %s", ev.Data[:64])
		}
		s.resp.Body.Close()
	}
	if n := snaps.Load(); n != 1 {
		t.Fatalf("%d snapshots for 3 pages", n)
	}
	sent := h.feed.bytesSent.Load()
	if sent > 3*(maxViewBytes+64) {
		t.Fatalf("%d bytes sent to 3 pages", sent)
	}
	t.Logf("3 streams and 5 page loads of a 200,003-node tree: 1 snapshot, %d bytes sent", sent)
	if !strings.Contains(pageCSP, "script-src 'sha256-") {
		t.Fatal(pageCSP)
	}
}

// A stream ends at its stated age (the browser reconnects), so a server
// shutting down never waits on an open page longer than that.
func TestStreamEndsAtItsAge(t *testing.T) {
	h := newDebugHandler(handlerConfig{limits: PageLimits{Interval: time.Hour, MaxStreamAge: 50 * time.Millisecond}},
		func() *Node { return bigTree(1) }, nil, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?format=events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := sse.NewReader(resp.Body, maxViewBytes)
	if ev, err := r.Next(); err != nil || ev.Type != "tree" {
		t.Fatalf("first event: %v", err)
	}
	if !r.RetrySet || r.Retry != time.Second {
		t.Fatalf("no reconnection delay: %v", r.Retry)
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("a second event")
	} else if err.Error() != "EOF" {
		t.Fatalf("the stream ended with %v", err)
	}
	if n := h.feed.streams.Load(); n != 0 {
		t.Fatalf("%d streams still counted", n)
	}
}

// A stream with a search follows the nodes matching it anywhere in the
// tree, beyond what the shared view holds.
func TestStreamWithASearch(t *testing.T) {
	tree := bigTree(10_000)
	h := newDebugHandler(handlerConfig{limits: PageLimits{Interval: time.Hour}}, func() *Node { return tree }, nil, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?format=events&q=" + url.QueryEscape("req$9999/"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sse.NewReader(resp.Body, maxViewBytes).Next()
	resp.Body.Close()
	var v pageView
	if err != nil || json.Unmarshal(ev.Data, &v) != nil {
		t.Fatalf("event: %v", err)
	}
	if v.Query != "req$9999/" || v.Shown != 4 || v.Root.Children[0].Children[0].ID != "snodo/handler$1/req$9999" {
		t.Fatalf("view: %d shown, query %q", v.Shown, v.Query)
	}
}
