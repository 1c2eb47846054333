package hub_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// drain pulls every pending event of l.
func drainListener(t *testing.T, l *hub.Listener) []string {
	t.Helper()
	var got []string
	for {
		ev, err := l.Next()
		switch {
		case err == nil:
			got = append(got, ev.URI)
		case errors.Is(err, dispatch.ErrNoEvent):
			return got
		default:
			t.Fatalf("Next: %v", err)
		}
	}
}

func publishURIs(t *testing.T, h *hub.Hub, n int) []dispatch.PublishResult {
	t.Helper()
	var rs []dispatch.PublishResult
	for i := range n {
		r, err := h.ResourceUpdated(fmt.Sprintf("file:///%d", i))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func allURIs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("file:///%d", i)
	}
	return out
}

func TestHubOverflowDropOldest(t *testing.T) {
	h := hub.New(hub.Options{MaxBuffer: 3})
	w := newWaker()
	l := h.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: allURIs(5)}, w.wake)
	defer l.Close()
	rs := publishURIs(t, h, 5)
	// Nobody waited yet: all are buffered; the 4th and 5th push out the
	// oldest.
	for i, r := range rs {
		wantDropped := 0
		if i >= 3 {
			wantDropped = 1
		}
		if r.Matched != 1 || r.Buffered != 1 || r.Delivered != 0 || r.Dropped != wantDropped {
			t.Fatalf("publish %d: %+v", i, r)
		}
	}
	if got := drainListener(t, l); fmt.Sprint(got) != "[file:///2 file:///3 file:///4]" {
		t.Fatalf("kept %v, want the newest three", got)
	}
	if l.Dropped() != 2 {
		t.Fatalf("dropped %d", l.Dropped())
	}
	// The listener now waits: the next event is delivered and wakes it.
	r, _ := h.ResourceUpdated("file:///0")
	if r.Delivered != 1 || r.Buffered != 0 || w.n.Load() != 1 {
		t.Fatalf("publish to a waiting listener: %+v wakes=%d", r, w.n.Load())
	}
	st := h.Stats()
	if st.Listeners != 1 || st.Published != 6 || st.Matched != 6 || st.Delivered != 1 || st.Buffered != 5 || st.Dropped != 2 || st.Opened != 1 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestHubOverflowDropNewest(t *testing.T) {
	h := hub.New(hub.Options{MaxBuffer: 3, Overflow: hub.DropNewest})
	l := h.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: allURIs(5)}, nil)
	defer l.Close()
	rs := publishURIs(t, h, 5)
	for i, r := range rs[3:] {
		if r.Matched != 1 || r.Buffered != 0 || r.Dropped != 1 {
			t.Fatalf("publish %d over the buffer: %+v", i+3, r)
		}
	}
	if got := drainListener(t, l); fmt.Sprint(got) != "[file:///0 file:///1 file:///2]" {
		t.Fatalf("kept %v, want the oldest three", got)
	}
}

func TestHubDefaultBufferIs100(t *testing.T) {
	h := hub.New(hub.Options{})
	l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	defer l.Close()
	dropped := 0
	for range 150 {
		dropped += h.ToolsListChanged().Dropped
	}
	if dropped != 50 {
		t.Fatalf("dropped %d of 150 with the default buffer, want 50", dropped)
	}
}

func TestHubRoutesByKindAndURI(t *testing.T) {
	h := hub.New(hub.Options{})
	tools := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	both := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, nil)
	defer tools.Close()
	defer both.Close()
	if r := h.ToolsListChanged(); r.Matched != 2 {
		t.Fatalf("tools: %+v", r)
	}
	if r := h.PromptsListChanged(); r.Matched != 1 {
		t.Fatalf("prompts: %+v", r)
	}
	if r := h.ResourcesListChanged(); r.Matched != 0 {
		t.Fatalf("resources list: %+v", r)
	}
	if r, _ := h.ResourceUpdated("file:///b"); r.Matched != 0 {
		t.Fatalf("unsubscribed URI: %+v", r)
	}
	if r, _ := h.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///a/child", Subscribed: "file:///a"}); r.Matched != 1 {
		t.Fatalf("sub-resource: %+v", r)
	}
	if _, err := h.ResourceUpdated("relative"); !errors.Is(err, dispatch.ErrInvalidEvent) {
		t.Fatalf("relative URI: %v", err)
	}
	if _, err := h.Publish(dispatch.Event{}); !errors.Is(err, dispatch.ErrInvalidEvent) {
		t.Fatalf("zero event: %v", err)
	}
	// A session-style listener changes its URIs as it goes.
	both.Unsubscribe("file:///a")
	both.Subscribe("file:///c", "file:///c")
	if r, _ := h.ResourceUpdated("file:///a"); r.Matched != 0 {
		t.Fatalf("after Unsubscribe: %+v", r)
	}
	if r, _ := h.ResourceUpdated("file:///c"); r.Matched != 1 {
		t.Fatalf("after Subscribe: %+v", r)
	}
	tools.Close()
	tools.Close()
	if r := h.ToolsListChanged(); r.Matched != 1 {
		t.Fatalf("after Close: %+v", r)
	}
	if _, err := tools.Next(); !errors.Is(err, hub.ErrListenerClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	if st := h.Stats(); st.Listeners != 1 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestHubCompleteDeliversBufferedEventsFirst(t *testing.T) {
	h := hub.New(hub.Options{})
	w := newWaker()
	busy := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	idle := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, w.wake)
	if _, err := idle.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatal(err)
	}
	// busy has one event buffered; idle waits.
	h.ToolsListChanged()
	if _, err := idle.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := idle.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatal(err)
	}
	before := w.n.Load()
	if n := h.Complete(); n != 2 {
		t.Fatalf("Complete ended %d", n)
	}
	if w.n.Load() != before+1 {
		t.Fatal("Complete did not wake the waiting listener")
	}
	if _, err := busy.Next(); err != nil {
		t.Fatalf("buffered event lost to completion: %v", err)
	}
	for _, l := range []*hub.Listener{busy, idle} {
		if _, err := l.Next(); !errors.Is(err, dispatch.ErrSubscriptionComplete) {
			t.Fatalf("after completion: %v", err)
		}
	}
	// Completion detached them; a later listener is not affected.
	later := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	defer later.Close()
	if r := h.ToolsListChanged(); r.Matched != 1 {
		t.Fatalf("after Complete: %+v", r)
	}
	if n := h.Complete(); n != 1 {
		t.Fatalf("second Complete ended %d", n)
	}
}

func TestHubConcurrentPublishAndPull(t *testing.T) {
	h := hub.New(hub.Options{MaxBuffer: 8})
	const listeners, events = 8, 500
	var wg sync.WaitGroup
	totals := make([]int, listeners)
	for i := range listeners {
		w := newWaker()
		l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, w.wake)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.Close()
			for {
				_, err := l.Next()
				switch {
				case err == nil:
					totals[i]++
				case errors.Is(err, dispatch.ErrNoEvent):
					<-w.ch
				case errors.Is(err, dispatch.ErrSubscriptionComplete):
					return
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	var sum dispatch.PublishResult
	for range events {
		r := h.ToolsListChanged()
		sum.Matched += r.Matched
		sum.Delivered += r.Delivered
		sum.Buffered += r.Buffered
		sum.Dropped += r.Dropped
	}
	h.Complete()
	wg.Wait()
	got := 0
	for _, n := range totals {
		got += n
	}
	// Every matched event was either pulled or dropped (DropOldest counts
	// the new one buffered and the old one dropped).
	if sum.Matched != listeners*events || got != sum.Matched-sum.Dropped || sum.Delivered+sum.Buffered != sum.Matched {
		t.Fatalf("pulled %d; publish totals %+v", got, sum)
	}
}

// A tap hears every event published while it is on, whatever the
// listeners' filters, and nothing once removed.
func TestHubTap(t *testing.T) {
	h := hub.New(hub.Options{})
	var heard []string
	remove := h.Tap(func(ev dispatch.Event) { heard = append(heard, ev.Kind.String()+" "+ev.URI) })
	h.ToolsListChanged()
	if _, err := h.ResourceUpdated("file:///a"); err != nil {
		t.Fatal(err)
	}
	remove()
	remove() // twice is harmless
	h.PromptsListChanged()
	if got := strings.Join(heard, ","); got != "toolsListChanged ,resourceUpdated file:///a" {
		t.Fatalf("the tap heard %q", got)
	}
}

// OnSubscriptionsChanged hears when a URI gains its first listener or
// loses its last, and SubscribedURIs names the set.
func TestHubSubscriptionsChanged(t *testing.T) {
	var h *hub.Hub
	var seen []string
	h = hub.New(hub.Options{OnSubscriptionsChanged: func() {
		seen = append(seen, strings.Join(h.SubscribedURIs(), " "))
	}})
	a := h.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///a"}}, nil)
	b := h.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///a"}, ToolsListChanged: true}, nil)
	b.Subscribe("file:///b")
	b.Subscribe("file:///b") // no change
	a.Close()                // file:///a keeps b
	b.Unsubscribe("file:///a")
	b.Close()
	want := []string{"file:///a", "file:///a file:///b", "file:///b", ""}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("changes seen: %q, want %q", seen, want)
	}
}
