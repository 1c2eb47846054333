package backplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// instance is one server instance: a Runtime whose listen streams are
// served by a hub shared with the others through Events.
type instance struct {
	name   string
	nc     *nats.Conn
	hub    *hub.Hub
	events *backplane.Events
	reg    *hub.Registry
	rt     *dispatch.Runtime
}

const (
	watched = "file:///watched"
	other   = "file:///other"
)

func newInstance(t testing.TB, name string, nc *nats.Conn, hubOpts hub.Options) *instance {
	t.Helper()
	in := &instance{name: name, nc: nc, hub: hub.New(hubOpts)}
	var err error
	in.events, err = backplane.NewEvents(context.Background(), nc, in.hub, backplane.WithName("fanout"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.events.Close() })
	in.reg = in.events.NewRegistry()
	read := func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "x")}}, nil
	}
	in.rt, err = dispatch.New(mcp.Implementation{Name: name, Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithSubscriptions(in.events),
		dispatch.WithCatalog(in.reg),
		dispatch.WithResource(mcp.Resource{URI: watched, Name: "watched"}, read),
		dispatch.WithResource(mcp.Resource{URI: other, Name: "other"}, read),
		// One end marker per instance: see collect.
		dispatch.WithResource(mcp.Resource{URI: "file:///end/" + name, Name: "end"}, read),
	)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// listen opens a subscriptions/listen stream on in, through a client.
func (in *instance) listen(t *testing.T, f mcp.SubscriptionFilter) *client.Subscription {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.New(ctx, inprocess.New(in.rt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	sub, err := c.Listen(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	return sub
}

// label names an event for comparison: the method's last part and the URI.
func label(ev client.Event) string {
	switch ev.Method {
	case "notifications/resources/updated":
		return "updated " + ev.URI
	case "notifications/tools/list_changed":
		return "tools"
	case "notifications/prompts/list_changed":
		return "prompts"
	case "notifications/resources/list_changed":
		return "resources"
	}
	return fmt.Sprintf("%s dropped=%d", ev.Method, ev.Dropped)
}

// collect reads sub until it has seen the end marker of every instance
// in ends (file:///end/<name>), which each instance publishes after its
// other events. NATS keeps one connection's messages in order, so once
// every marker has arrived, everything published before them has too:
// what collect returns is all a listener got, duplicates included.
func collect(t *testing.T, sub *client.Subscription, ends ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want := map[string]bool{}
	for _, e := range ends {
		want["updated file:///end/"+e] = true
	}
	var got []string
	for len(want) > 0 {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %v, still waiting for %v: %v", got, want, err)
		}
		l := label(ev)
		delete(want, l)
		got = append(got, l)
	}
	return got
}

func endMarker(t *testing.T, in *instance) {
	t.Helper()
	if _, err := in.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///end/" + in.name}); err != nil {
		t.Fatal(err)
	}
}

// TestEventsReachEveryListenerOnEveryInstanceOnce publishes events on
// each of three instances (resource updates, a list change, a registry
// change) and checks that every listener on every instance got exactly
// the events its filter names, each once.
func TestEventsReachEveryListenerOnEveryInstanceOnce(t *testing.T) {
	ns := startNATS(t)
	var ins []*instance
	for _, name := range []string{"a", "b", "c"} {
		ins = append(ins, newInstance(t, name, ns.connect(t), hub.Options{}))
	}
	ends := mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///end/a", "file:///end/b", "file:///end/c"}}
	withEnds := func(f mcp.SubscriptionFilter) mcp.SubscriptionFilter {
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, ends.ResourceSubscriptions...)
		return f
	}
	type listener struct {
		on   *instance
		sub  *client.Subscription
		want []string
	}
	var ls []listener
	for _, in := range ins {
		ls = append(ls,
			listener{on: in, sub: in.listen(t, withEnds(mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{watched}})),
				want: []string{"updated file:///watched", "updated file:///watched", "tools", "tools", "updated file:///watched"}},
			listener{on: in, sub: in.listen(t, withEnds(mcp.SubscriptionFilter{PromptsListChanged: true, ResourceSubscriptions: []string{other}})),
				want: []string{"updated file:///other", "prompts"}},
		)
	}

	pub := func(in *instance, ev dispatch.Event) {
		t.Helper()
		if _, err := in.events.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
	// Each instance publishes different events; a watched-resource update
	// from a and c, a tools change from b (through Publish) and from c
	// (through its registry), an update of other from b, a prompts change
	// from a's registry.
	pub(ins[0], dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched})
	if err := ins[0].reg.AddPrompt(mcp.Prompt{Name: "p"}, func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	pub(ins[1], dispatch.Event{Kind: dispatch.EventToolsListChanged})
	pub(ins[1], dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: other})
	if err := ins[2].reg.AddTool(mcp.Tool{Name: "t"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("t"), nil
	}); err != nil {
		t.Fatal(err)
	}
	pub(ins[2], dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched})
	pub(ins[2], dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched})
	for _, in := range ins {
		// The registry forwards on its own goroutine: wait until its
		// change was sent, so the end marker follows it.
		waitPublished(t, in, map[string]int64{"a": 2, "b": 2, "c": 3}[in.name])
		endMarker(t, in)
	}

	for i, l := range ls {
		got := collect(t, l.sub, "a", "b", "c")
		var events []string
		for _, g := range got {
			if len(g) < len("updated file:///end/") || g[:len("updated file:///end/")] != "updated file:///end/" {
				events = append(events, g)
			}
		}
		slices.Sort(events)
		want := slices.Clone(l.want)
		slices.Sort(want)
		if !slices.Equal(events, want) {
			t.Errorf("listener %d on %s got %v, want %v (each once)", i, l.on.name, events, want)
		}
		if n := len(got) - len(events); n != 3 {
			t.Errorf("listener %d on %s got %d end markers, want 3", i, l.on.name, n)
		}
	}
	for _, in := range ins {
		if s := in.events.Stats(); s.Duplicates != 0 || s.Invalid != 0 || s.Received == 0 {
			t.Errorf("%s: stats %+v", in.name, s)
		}
	}
}

// waitPublished waits until in has sent n events to the others.
func waitPublished(t *testing.T, in *instance, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for in.events.Stats().Published < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s sent %d events in 10 s, want %d", in.name, in.events.Stats().Published, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEventsDuplicateAndReordered delivers another origin's events twice
// and out of order, straight on the subject: each is handed to the hub
// once, the reordered ones too, and one older than the window is dropped.
func TestEventsDuplicateAndReordered(t *testing.T) {
	ns := startNATS(t)
	in := newInstance(t, "a", ns.connect(t), hub.Options{})
	sub := in.listen(t, mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched, other, "file:///end/x"}})
	raw := ns.connect(t)
	send := func(seq uint64, uri string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"o": "x", "s": seq, "k": "resourceUpdated", "u": uri})
		if err := raw.Publish("fanout.events", b); err != nil {
			t.Fatal(err)
		}
	}
	send(2, watched)
	send(2, watched) // duplicate
	send(1, other)   // reordered: older, never seen
	send(1, other)   // duplicate of the reordered one
	send(2000, watched)
	send(3, other) // more than 1,024 behind 2000: late
	send(2001, "file:///end/x")
	if err := raw.Publish("fanout.events", []byte(`{"o":"x","s":5,"k":"nonsense"}`)); err != nil {
		t.Fatal(err)
	}
	send(2002, "file:///end/x") // after the invalid message: see below

	got := collect(t, sub, "x")
	want := []string{"updated " + watched, "updated " + other, "updated " + watched, "updated file:///end/x"}
	if !slices.Equal(got, want) {
		t.Fatalf("the listener got %v, want %v", got, want)
	}
	// The second end marker is the barrier for the counters.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ev, err := sub.Next(ctx); err != nil || label(ev) != "updated file:///end/x" {
		t.Fatalf("after the invalid message: %v, %v", label(ev), err)
	}
	s := in.events.Stats()
	if s.Received != 5 || s.Duplicates != 2 || s.Late != 1 || s.Invalid != 1 {
		t.Fatalf("stats %+v, want 5 received, 2 duplicates, 1 late, 1 invalid", s)
	}
}

// TestEventsNATSRestart stops the NATS server under two instances and
// starts it again. The specified outcome for a listen stream: it stays
// open; an event published on its own instance meanwhile reaches it at
// once and only once; after the reconnection it is resynchronised (one
// list change of each kind it names, one update of each resource it
// subscribed to), an event the other instance published during the loss
// arrives at most once, and what the other instance publishes afterwards
// arrives once.
func TestEventsNATSRestart(t *testing.T) {
	ns := startNATS(t)
	opts := []nats.Option{nats.ReconnectWait(20 * time.Millisecond), nats.MaxReconnects(-1)}
	a := newInstance(t, "a", ns.connect(t, opts...), hub.Options{})
	b := newInstance(t, "b", ns.connect(t, opts...), hub.Options{})
	sub := b.listen(t, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{watched, other}})
	backA := a.nc.StatusChanged(nats.CONNECTED)
	backB := b.nc.StatusChanged(nats.CONNECTED)
	defer a.nc.RemoveStatusListener(backA)
	defer b.nc.RemoveStatusListener(backB)

	ns.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := b.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched}); err != nil {
		t.Fatalf("Publish on b while NATS is down: %v", err)
	}
	if ev, err := sub.Next(ctx); err != nil || label(ev) != "updated "+watched {
		t.Fatalf("b's own event during the loss: %s, %v", label(ev), err)
	}
	if _, err := a.events.Publish(dispatch.Event{Kind: dispatch.EventToolsListChanged}); err != nil {
		t.Fatalf("Publish on a while NATS is down: %v", err)
	}

	ns.start()
	for _, ch := range []chan nats.Status{backA, backB} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("an instance did not reconnect in 20 s")
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for b.events.Stats().Resyncs < 1 {
		if time.Now().After(deadline) {
			t.Fatal("b did not resynchronise its listeners in 10 s after reconnecting")
		}
		time.Sleep(time.Millisecond)
	}
	// A sub-resource update of other is the barrier: it comes after
	// anything a sent before it, and no resynchronisation sends it.
	barrier := "file:///other/after"
	if _, err := a.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: barrier, Subscribed: other}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		if l := label(ev); l != "updated "+barrier {
			got = append(got, l)
			continue
		}
		break
	}
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	if count["updated "+watched] != 1 || count["updated "+other] != 1 || count["tools"] < 1 || count["tools"] > 2 || len(count) != 3 {
		t.Fatalf("after the restart the stream got %v, want one resynchronising tools change, update of %s and of %s, and a's tools change at most once", got, watched, other)
	}
	if s := b.events.Stats(); s.Resyncs != 1 || s.Duplicates != 0 {
		t.Fatalf("b's stats %+v", s)
	}
}

// TestRemoteEventsObeyTheListenersBound: events from another instance
// fill a listener's buffer under its own hub's bound and overflow policy,
// as local ones do (here 2 events, DropNewest).
func TestRemoteEventsObeyTheListenersBound(t *testing.T) {
	ns := startNATS(t)
	a := newInstance(t, "a", ns.connect(t), hub.Options{})
	b := newInstance(t, "b", ns.connect(t), hub.Options{MaxBuffer: 2, Overflow: hub.DropNewest})
	// A listener nobody reads, and a stream that sees the end marker: the
	// hub hands each event to both in one Publish.
	slow := b.hub.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched, "file:///end/a"}}, nil)
	defer slow.Close()
	if _, err := slow.Next(); err != dispatch.ErrNoEvent {
		t.Fatalf("an empty listener: %v", err)
	}
	reader := b.listen(t, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///end/a"}})
	for i := range 4 {
		if _, err := a.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: fmt.Sprintf("%s/%d", watched, i), Subscribed: watched}); err != nil {
			t.Fatal(err)
		}
	}
	endMarker(t, a)
	collect(t, reader, "a")
	var got []string
	for {
		ev, err := slow.Next()
		if err != nil {
			break
		}
		got = append(got, ev.URI)
	}
	if want := []string{watched + "/0", watched + "/1"}; !slices.Equal(got, want) || slow.Dropped() != 3 {
		t.Fatalf("the bounded listener holds %v with %d dropped, want %v and 3 dropped (DropNewest)", got, slow.Dropped(), want)
	}
}

// TestExtensionEventsCrossInstances publishes task status events (an
// extension's keyed events) on one instance and checks that a listener
// on another following one task id gets that task's event, params intact,
// and not the other's.
func TestExtensionEventsCrossInstances(t *testing.T) {
	ns := startNATS(t)
	a := newInstance(t, "a", ns.connect(t), hub.Options{})
	b := newInstance(t, "b", ns.connect(t), hub.Options{})
	wake := make(chan struct{}, 1)
	l := b.hub.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///end/a"},
		Keys: map[string][]string{mcp.FilterTaskIDs: {"T1"}}}, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	status := func(id string) dispatch.Event {
		return dispatch.Event{Kind: dispatch.EventExtension, Member: mcp.FilterTaskIDs, Key: id, Method: mcp.NotificationTasks,
			Params: json.RawMessage(`{"taskId":"` + id + `","status":"completed","note":"\u00e9"}`)}
	}
	for _, id := range []string{"T2", "T1"} {
		if _, err := a.events.Publish(status(id)); err != nil {
			t.Fatal(err)
		}
	}
	endMarker(t, a)
	var got []dispatch.Event
	timeout := time.After(20 * time.Second)
	for len(got) == 0 || got[len(got)-1].URI != "file:///end/a" {
		ev, err := l.Next()
		if err == nil {
			got = append(got, ev)
			continue
		}
		select {
		case <-wake:
		case <-timeout:
			t.Fatalf("after %+v, no end marker", got)
		}
	}
	want := status("T1")
	if len(got) != 2 || got[0].Kind != want.Kind || got[0].Key != "T1" || got[0].Method != want.Method || got[0].Member != want.Member ||
		string(got[0].Params) != string(want.Params) {
		t.Fatalf("got %+v, want the T1 event and the end marker", got)
	}
}

// TestSlowConsumerLossResynchronisesTheListeners holds B's hub (its only
// listen stream's wake blocks) while A publishes more events than B may
// keep waiting, so the NATS client drops some. Once released, B hands the
// hub what did arrive, counts the loss, and resynchronises its listeners:
// the stream reads a tools list change and the watched resource's update,
// which nobody published.
func TestSlowConsumerLossResynchronisesTheListeners(t *testing.T) {
	ns := startNATS(t)
	slow := make(chan struct{}, 1)
	a := newInstance(t, "a", ns.connect(t), hub.Options{})
	b := newInstance(t, "b", ns.connect(t, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) {
			select {
			case slow <- struct{}{}:
			default:
			}
		}
	})), hub.Options{MaxBuffer: 8, Overflow: hub.DropOldest})
	hold, held, woke := make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	var once sync.Once
	wake := func() {
		once.Do(func() { close(held); <-hold })
		select {
		case woke <- struct{}{}:
		default:
		}
	}
	filter := mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{watched}}
	sub, _, err := b.events.OpenSubscription(context.Background(), &dispatch.SubscriptionRequest{Info: &dispatch.RequestInfo{}, Filter: filter, Wake: wake})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	// A stream is woken once its Next has found nothing.
	if _, err := sub.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatalf("a new stream's Next: %v", err)
	}
	publish := func() {
		t.Helper()
		if _, err := a.events.Publish(dispatch.Event{Kind: dispatch.EventPromptsListChanged}); err != nil {
			t.Fatal(err)
		}
	}
	// The first event blocks B's receiving goroutine in the wake; then
	// the events wait in B's inbox until the NATS client drops some.
	publish()
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the first event did not reach B in 10 s")
	}
	deadline := time.After(20 * time.Second)
	for i := 1; ; i++ {
		publish()
		if i%256 != 0 {
			continue
		}
		// Let NATS deliver what was sent before checking for the drop.
		if err := a.nc.Flush(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-slow:
		case <-deadline:
			t.Fatalf("no slow-consumer drop after %d events in 20 s", i)
		default:
			continue
		}
		break
	}
	close(hold)
	limit := time.After(20 * time.Second)
	var got []string
	for !slices.Contains(got, "toolsListChanged") || !slices.Contains(got, "updated "+watched) {
		ev, err := sub.Next()
		if err == nil {
			got = append(got, eventLabel(ev))
			continue
		}
		if !errors.Is(err, dispatch.ErrNoEvent) {
			t.Fatalf("the stream ended: %v", err)
		}
		select {
		case <-woke:
		case <-limit:
			t.Fatalf("no resynchronisation in 20 s: the stream read %d events, the last %v", len(got), got[max(0, len(got)-4):])
		}
	}
	if s := b.events.Stats(); s.Lost == 0 || s.Resyncs == 0 {
		t.Fatalf("B's stats %+v, want events lost and a resynchronisation", s)
	}
}
