package backplane_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// scaleStream is one listen stream's feed, opened through Events as a
// subscriptions/listen stream opens it, and what it has read.
type scaleStream struct {
	sub dispatch.Subscription
	got []string
}

// drainUntil reads every stream until each has read last, waking on
// woke, for at most 30 s.
func drainUntil(t *testing.T, streams []*scaleStream, woke chan struct{}, last string) {
	t.Helper()
	limit := time.After(30 * time.Second)
	for {
		pending := 0
		for _, s := range streams {
			for len(s.got) == 0 || s.got[len(s.got)-1] != last {
				ev, err := s.sub.Next()
				if errors.Is(err, dispatch.ErrNoEvent) {
					pending++
					break
				}
				if err != nil {
					t.Fatalf("a stream ended: %v", err)
				}
				s.got = append(s.got, eventLabel(ev))
			}
		}
		if pending == 0 {
			return
		}
		select {
		case <-woke:
		case <-limit:
			t.Fatalf("%d of %d streams had not read %q after 30s", pending, len(streams), last)
		}
	}
}

// sentinel is a listener of one hub that the test reads to learn that an
// event has reached that hub's listeners.
type sentinel struct {
	l    *hub.Listener
	woke chan struct{}
}

func newSentinel(t *testing.T, h *hub.Hub) *sentinel {
	s := &sentinel{woke: make(chan struct{}, 1)}
	s.l = h.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched}}, func() {
		select {
		case s.woke <- struct{}{}:
		default:
		}
	})
	t.Cleanup(s.l.Close)
	return s
}

// wait reads the sentinel until it reads want, for at most 20 s.
func (s *sentinel) wait(t *testing.T, want string) {
	t.Helper()
	limit := time.After(20 * time.Second)
	for {
		ev, err := s.l.Next()
		if err == nil {
			if eventLabel(ev) == want {
				return
			}
			continue
		}
		select {
		case <-s.woke:
		case <-limit:
			t.Fatalf("no %q within 20s", want)
		}
	}
}

// eventLabel names a hub event as label names a client's.
func eventLabel(ev dispatch.Event) string {
	if ev.Kind == dispatch.EventResourceUpdated {
		return "updated " + ev.URI
	}
	return ev.Kind.String()
}

// TestManyListenStreamsThroughANATSRestart opens many listen streams
// (10,000; 1,000 under the race detector or -short) across two instances,
// each buffering at most 4 events (DropOldest). An event from A reaches
// every stream once. NATS then stops; A publishes 6 events that reach its
// own streams only (its connection buffers nothing while disconnected),
// which drop the oldest beyond their bound. When NATS is back, each
// instance resynchronises its streams (a tools list change, an update of
// the watched resource), again under the bound, and an event from A
// reaches every stream on both: they resumed.
func TestManyListenStreamsThroughANATSRestart(t *testing.T) {
	n := 10000
	if raceBuild || testing.Short() {
		n = 1000
	}
	ns := startNATS(t)
	opts := []nats.Option{nats.ReconnectWait(20 * time.Millisecond), nats.MaxReconnects(-1), nats.ReconnectBufSize(-1)}
	hubOpts := hub.Options{MaxBuffer: 4, Overflow: hub.DropOldest}
	a := newInstance(t, "a", ns.connect(t, opts...), hubOpts)
	b := newInstance(t, "b", ns.connect(t, opts...), hubOpts)
	woke := make(chan struct{}, 1)
	wake := func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	}
	ctx := context.Background()
	filter := mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{watched}}
	var onA, onB []*scaleStream
	for i := range n {
		in, list := a, &onA
		if i%2 == 1 {
			in, list = b, &onB
		}
		sub, _, err := in.events.OpenSubscription(ctx, &dispatch.SubscriptionRequest{Info: &dispatch.RequestInfo{}, Filter: filter, Wake: wake})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sub.Close)
		*list = append(*list, &scaleStream{sub: sub})
	}
	all := append(slices.Clone(onA), onB...)
	update := func(in *instance, i int) (string, error) {
		uri := fmt.Sprintf("%s/%d", watched, i)
		_, err := in.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: uri, Subscribed: watched})
		return "updated " + uri, err
	}

	first, err := update(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	drainUntil(t, all, woke, first)
	for _, s := range all {
		if !slices.Equal(s.got, []string{first}) {
			t.Fatalf("a stream read %v, want %q once", s.got, first)
		}
		s.got = nil
	}

	sentinels := []*sentinel{newSentinel(t, a.hub), newSentinel(t, b.hub)}
	backA := a.nc.StatusChanged(nats.CONNECTED)
	backB := b.nc.StatusChanged(nats.CONNECTED)
	defer a.nc.RemoveStatusListener(backA)
	defer b.nc.RemoveStatusListener(backB)
	lostA := a.nc.StatusChanged(nats.RECONNECTING)
	defer a.nc.RemoveStatusListener(lostA)
	ns.stop()
	select {
	case <-lostA:
	case <-time.After(10 * time.Second):
		t.Fatal("A did not notice the loss in 10 s")
	}
	for i := 2; i <= 7; i++ {
		// Unsent, the event still reaches A's own streams.
		if _, err := update(a, i); err == nil {
			t.Fatalf("event %d was sent while NATS was down", i)
		}
	}
	if s := a.events.Stats(); s.PublishFailed != 6 {
		t.Fatalf("A's stats during the loss: %+v, want the 6 events unsent", s)
	}
	ns.start()
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for _, ch := range []chan nats.Status{backA, backB} {
		select {
		case <-ch:
		case <-rctx.Done():
			t.Fatal("an instance did not reconnect in 20 s")
		}
	}
	// The resynchronisation's last event is the update of the watched
	// resource itself: once each hub's sentinel has it, the streams have
	// theirs.
	for _, sen := range sentinels {
		sen.wait(t, "updated "+watched)
	}
	droppedBefore := a.hub.Stats().Dropped - sentinels[0].l.Dropped()
	after, err := update(a, 8)
	if err != nil {
		t.Fatal(err)
	}
	drainUntil(t, all, woke, after)

	// A's streams held 2..7, kept the newest 4, then the resynchronising
	// events and the last one pushed out the oldest again.
	wantA := []string{"updated " + watched + "/7", "toolsListChanged", "updated " + watched, after}
	for _, s := range onA {
		if !slices.Equal(s.got, wantA) {
			t.Fatalf("a stream on A read %v, want %v", s.got, wantA)
		}
	}
	wantB := []string{"toolsListChanged", "updated " + watched, after}
	for _, s := range onB {
		if !slices.Equal(s.got, wantB) {
			t.Fatalf("a stream on B read %v, want %v", s.got, wantB)
		}
	}
	if got, want := a.hub.Stats().Dropped-sentinels[0].l.Dropped(), int64(5*len(onA)); got != want {
		t.Fatalf("A's hub dropped %d events, want 5 per stream (%d)", got, want)
	}
	if d := a.hub.Stats().Dropped - sentinels[0].l.Dropped() - droppedBefore; d != int64(len(onA)) {
		t.Fatalf("the event after the restart dropped %d events on A, want one per stream", d)
	}
	if d := b.hub.Stats().Dropped - sentinels[1].l.Dropped(); d != 0 {
		t.Fatalf("B's hub dropped %d events", d)
	}
}
