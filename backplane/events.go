// This file fans the change events of subscriptions/listen out to every
// instance: each instance publishes its events on one NATS subject and
// hands what the others publish to its own hub.

package backplane

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// inboxSize is how many events from NATS wait for the hub; more are
// dropped by the NATS client, counted as EventStats.Lost, and followed by
// a resynchronisation of the listeners once the hub has caught up.
const inboxSize = 4096

// subscribeTimeout bounds NewEvents' wait for the server to confirm its
// subscription when ctx has no deadline.
const subscribeTimeout = 10 * time.Second

// Events is a [dispatch.SubscriptionSource], [dispatch.SessionSource]
// and publisher shared by every instance of a server: an event published
// on any instance reaches every matching listener on every instance (the
// listen streams and the initialize-era sessions alike), at most once
// each.
//
// Each instance keeps its own [hub.Hub], which opens the listeners
// and applies to each its filter, its buffer bound and the overflow policy
// exactly as in one process. [Events.Publish] hands an event to the local
// hub at once and sends it on the NATS subject <name>.events (see
// [WithName]); every other instance hands what arrives there to its hub.
// Each event carries its origin instance and a sequence number, and an
// instance applies an event of a given origin and number once: a
// duplicate delivery is dropped, one delivered out of order is still
// applied, one older than the last 1,024 of its origin is dropped as late.
//
// While the NATS connection is lost, events published on this instance
// still reach its own listeners, and the NATS client buffers what it
// sends (nats.ReconnectBufSize) until it reconnects. Events published on
// other instances meanwhile may never arrive, so once the connection is
// back every listener is resynchronised: the hub is handed one
// tools, prompts and resources list change, and one update of every
// resource a listen stream or session opened through Events subscribed
// to, so that each client reads again what it listens to. Listeners stay
// open through the loss; the resynchronising events obey their bounds and overflow
// policy like any other. The same resynchronisation follows events the
// NATS client dropped because more than 4,096 were waiting for the hub (a
// slow consumer, EventStats.Lost), once the hub has taken those waiting.
// Extensions' events (dispatch.EventExtension,
// such as the tasks extension's status changes) travel the same way but
// have no resynchronisation: one published elsewhere while the connection
// was lost is not delivered here, and a client that follows a task reads
// its state again with tasks/get.
//
// Configure the Runtime with WithSubscriptions(events). Its methods are
// safe for concurrent use; Close it before closing the NATS connection.
type Events struct {
	nc      *nats.Conn
	hub     *hub.Hub
	subject string
	origin  string
	seq     atomic.Uint64

	sub    *nats.Subscription
	inbox  chan *nats.Msg
	status chan nats.Status
	reg    *hub.Hub
	regL   *hub.Listener
	regC   chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once

	mu      sync.Mutex
	origins *origins
	streams map[*stream]struct{}
	lost    bool
	stats   EventStats
}

// EventStats counts what an Events did.
type EventStats struct {
	// Published counts events this instance sent to the other instances.
	Published int64
	// PublishFailed counts events the NATS client refused to send (closed
	// connection, full reconnect buffer): they reached this instance only.
	PublishFailed int64
	// Received counts events from other instances handed to the hub.
	Received int64
	// Duplicates counts deliveries dropped because their event had
	// already been handed to the hub.
	Duplicates int64
	// Late counts events dropped because they were older than the last
	// 1,024 of their origin.
	Late int64
	// Invalid counts messages on the subject that were not events.
	Invalid int64
	// Lost counts events the NATS client dropped because the hub had not
	// taken the previous ones yet (a slow consumer).
	Lost int64
	// Resyncs counts reconnections (and the first connection of an Events
	// started with WithLocalOnlyStart) and slow-consumer losses after
	// which the listeners were resynchronised.
	Resyncs int64
}

// NewEvents starts fanning h's events out over nc and the other
// instances' events in. It fails, wrapping [ErrUnavailable], when nc is
// not connected (unless [WithLocalOnlyStart] is given), or when the
// server does not confirm the subscription before ctx ends (within 10 s
// when ctx has no deadline).
func NewEvents(ctx context.Context, nc *nats.Conn, h *hub.Hub, opts ...Option) (*Events, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("backplane: NewEvents: nil hub")
	}
	local := false
	if err := checkConn(nc); err != nil {
		if !c.mayStartLocal(nc) {
			return nil, err
		}
		local = true // see WithLocalOnlyStart
	}
	e := &Events{
		nc: nc, hub: h, subject: c.name + ".events", origin: rand.Text(),
		inbox: make(chan *nats.Msg, inboxSize), regC: make(chan struct{}, 1), done: make(chan struct{}),
		origins: newOrigins(), streams: map[*stream]struct{}{},
	}
	e.status = nc.StatusChanged(nats.CONNECTED, nats.DISCONNECTED, nats.RECONNECTING)
	e.sub, err = nc.ChanSubscribe(e.subject, e.inbox)
	if err == nil && local {
		// The client sends the subscription when it connects; the first
		// connection then resynchronises the listeners.
		_ = e.sub.SetPendingLimits(inboxSize, -1)
		e.lost = true
	} else if err == nil {
		_ = e.sub.SetPendingLimits(inboxSize, -1)
		// The subscription is in place on the server before NewEvents
		// returns, so no event published after it is missed.
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, subscribeTimeout)
			defer cancel()
		}
		err = nc.FlushWithContext(ctx)
	}
	if err != nil {
		nc.RemoveStatusListener(e.status)
		if e.sub != nil {
			_ = e.sub.Unsubscribe()
		}
		return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrUnavailable, e.subject, err)
	}
	e.reg = hub.New(hub.Options{})
	e.regL = e.reg.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}, e.registryChanged)
	e.wg.Add(3)
	go e.receive()
	go e.watch()
	go e.forward()
	return e, nil
}

// Publish hands ev to the local hub's listeners and sends it to every
// other instance. The result is the local hub's. An invalid event reaches
// nobody and is dispatch.ErrInvalidEvent; an event the NATS client
// refuses reached this instance only, and the error says why.
func (e *Events) Publish(ev dispatch.Event) (dispatch.PublishResult, error) {
	if _, err := dispatch.EncodeEvent(ev, jsonrpc.ID{}); err != nil {
		return dispatch.PublishResult{}, err
	}
	r, err := e.hub.Publish(ev)
	if err != nil {
		return r, err
	}
	select {
	case <-e.done:
		return r, errors.New("backplane: Events closed: the event reached this instance only")
	default:
	}
	b, _ := json.Marshal(wireEvent{Origin: e.origin, Seq: e.seq.Add(1), Kind: ev.Kind.String(), URI: ev.URI, Subscribed: ev.Subscribed,
		Filter: ev.Member, Key: ev.Key, Method: ev.Method, Params: ev.Params})
	if err := e.nc.Publish(e.subject, b); err != nil {
		e.count(func(s *EventStats) { s.PublishFailed++ })
		return r, fmt.Errorf("backplane: the event reached this instance only: %w", err)
	}
	e.count(func(s *EventStats) { s.Published++ })
	return r, nil
}

// NewRegistry returns a hub.Registry whose changes (tools and
// prompts added or removed) are published through e, so that every
// instance's listeners hear them. It changes this instance's catalog
// only: the application applies the same change on every instance.
func (e *Events) NewRegistry() *hub.Registry { return hub.NewRegistry(e.reg) }

// OpenSubscription implements [dispatch.SubscriptionSource]: it attaches a
// listener for req.Filter to the local hub and accepts all of it.
func (e *Events) OpenSubscription(_ context.Context, req *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	return e.attach(req.Filter, req.Wake), req.Filter, nil
}

// AttachSession implements [dispatch.SessionSource]: an initialize-era
// session's feed is a listener on the local hub, so it hears the list
// changes and resource updates published on every instance; the URIs it
// subscribes to are resynchronised after a lost connection like a listen
// stream's.
func (e *Events) AttachSession(f mcp.SubscriptionFilter, wake func()) dispatch.SessionSubscription {
	return e.attach(f, wake)
}

// attach opens a listener on the local hub and tracks its resource
// subscriptions for resynchronisation.
func (e *Events) attach(f mcp.SubscriptionFilter, wake func()) *stream {
	s := &stream{e: e, uris: map[string]struct{}{}}
	for _, u := range f.ResourceSubscriptions {
		s.uris[u] = struct{}{}
	}
	s.l = e.hub.Attach(f, wake)
	e.mu.Lock()
	e.streams[s] = struct{}{}
	e.mu.Unlock()
	return s
}

// Stats returns e's counters.
func (e *Events) Stats() EventStats {
	var s EventStats
	e.count(func(c *EventStats) { s = *c })
	return s
}

// Close stops fanning events in and out; the hub and its listeners stay
// as they are, and the NATS connection, which the application owns, stays
// open. It is idempotent.
func (e *Events) Close() error {
	e.once.Do(func() {
		_ = e.sub.Unsubscribe()
		e.nc.RemoveStatusListener(e.status)
		e.regL.Close()
		close(e.done)
		e.wg.Wait()
	})
	return nil
}

// wireEvent is an event on the subject.
type wireEvent struct {
	Origin     string `json:"o"`
	Seq        uint64 `json:"s"`
	Kind       string `json:"k"`
	URI        string `json:"u,omitempty"`
	Subscribed string `json:"b,omitempty"`
	// An extension's event (dispatch.EventExtension): its filter member,
	// key, notification method and params.
	Filter string          `json:"f,omitempty"`
	Key    string          `json:"y,omitempty"`
	Method string          `json:"m,omitempty"`
	Params json.RawMessage `json:"p,omitempty"`
}

var kinds = map[string]dispatch.EventKind{}

func init() {
	for _, k := range []dispatch.EventKind{dispatch.EventToolsListChanged, dispatch.EventPromptsListChanged, dispatch.EventResourcesListChanged, dispatch.EventResourceUpdated, dispatch.EventExtension} {
		kinds[k.String()] = k
	}
}

// receive hands the other instances' events to the hub until Close.
// Whenever it has caught up (nothing waiting), it checks whether the NATS
// client dropped events meanwhile and, if so, resynchronises the
// listeners: what was dropped cannot be recovered, so every listener
// reads again what it listens to, after everything that did arrive.
func (e *Events) receive() {
	defer e.wg.Done()
	var dropped int
	for {
		select {
		case <-e.done:
			return
		case m := <-e.inbox:
			e.apply(m.Data)
		}
		if len(e.inbox) > 0 {
			continue
		}
		if n, err := e.sub.Dropped(); err == nil && n > dropped {
			dropped = n
			e.count(func(s *EventStats) { s.Resyncs++ })
			e.resync()
		}
	}
}

// apply hands one message's event to the hub, once per origin and number.
func (e *Events) apply(data []byte) {
	var w wireEvent
	kind, known := dispatch.EventKind(0), false
	if json.Unmarshal(data, &w) == nil {
		kind, known = kinds[w.Kind]
	}
	ev := dispatch.Event{Kind: kind, URI: w.URI, Subscribed: w.Subscribed, Member: w.Filter, Key: w.Key, Method: w.Method, Params: w.Params}
	if _, err := dispatch.EncodeEvent(ev, jsonrpc.ID{}); !known || err != nil || w.Origin == "" || w.Seq == 0 {
		e.count(func(s *EventStats) { s.Invalid++ })
		return
	}
	if w.Origin == e.origin {
		return // published here, and handed to the hub then
	}
	e.mu.Lock()
	fresh, late := e.origins.accept(w.Origin, w.Seq)
	switch {
	case late:
		e.stats.Late++
	case !fresh:
		e.stats.Duplicates++
	default:
		e.stats.Received++
	}
	e.mu.Unlock()
	if fresh {
		_, _ = e.hub.Publish(ev)
	}
}

// resyncFlushTimeout bounds the round trip that precedes a
// resynchronisation.
const resyncFlushTimeout = 5 * time.Second

// watch resynchronises the listeners after the connection comes back.
func (e *Events) watch() {
	defer e.wg.Done()
	for {
		select {
		case <-e.done:
			return
		case st, ok := <-e.status:
			if !ok {
				return
			}
			e.mu.Lock()
			resync := st == nats.CONNECTED && e.lost
			e.lost = st != nats.CONNECTED
			e.mu.Unlock()
			if resync {
				// A round trip first: once the server has answered it, it
				// has the subscription the client re-sent on reconnecting,
				// so no event published after the resynchronisation can
				// miss this instance.
				_ = e.nc.FlushTimeout(resyncFlushTimeout)
				e.mu.Lock()
				e.stats.Resyncs++
				e.mu.Unlock()
				e.resync()
			}
		}
	}
}

// resync hands the hub the events that make every listener read again
// what it listens to.
func (e *Events) resync() {
	for _, k := range []dispatch.EventKind{dispatch.EventToolsListChanged, dispatch.EventPromptsListChanged, dispatch.EventResourcesListChanged} {
		_, _ = e.hub.Publish(dispatch.Event{Kind: k})
	}
	uris := map[string]struct{}{}
	e.mu.Lock()
	for s := range e.streams {
		for u := range s.uris {
			uris[u] = struct{}{}
		}
	}
	e.mu.Unlock()
	for u := range uris {
		_, _ = e.hub.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: u})
	}
}

// registryChanged is the wake function of the registries' listener.
func (e *Events) registryChanged() {
	select {
	case e.regC <- struct{}{}:
	default:
	}
}

// forward publishes the registries' changes until Close.
func (e *Events) forward() {
	defer e.wg.Done()
	for {
		for {
			ev, err := e.regL.Next()
			if err != nil {
				break // none now (the wake follows), or closed
			}
			_, _ = e.Publish(ev)
		}
		select {
		case <-e.done:
			return
		case <-e.regC:
		}
	}
}

// count updates the counters under the lock, and folds in what the NATS
// client dropped.
func (e *Events) count(f func(*EventStats)) {
	e.mu.Lock()
	f(&e.stats)
	if n, err := e.sub.Dropped(); err == nil {
		e.stats.Lost = int64(n)
	}
	e.mu.Unlock()
}

// stream is a listen stream or an initialize-era session's feed opened
// through Events: the hub's listener, and the URIs it subscribed to
// (guarded by e.mu), which a resynchronisation updates.
type stream struct {
	e    *Events
	l    *hub.Listener
	uris map[string]struct{}
}

// Subscribe implements dispatch.SessionSubscription.
func (s *stream) Subscribe(uris ...string) {
	s.e.mu.Lock()
	for _, u := range uris {
		s.uris[u] = struct{}{}
	}
	s.e.mu.Unlock()
	s.l.Subscribe(uris...)
}

// Unsubscribe implements dispatch.SessionSubscription.
func (s *stream) Unsubscribe(uris ...string) {
	s.e.mu.Lock()
	for _, u := range uris {
		delete(s.uris, u)
	}
	s.e.mu.Unlock()
	s.l.Unsubscribe(uris...)
}

// Next implements dispatch.Subscription.
func (s *stream) Next() (dispatch.Event, error) { return s.l.Next() }

// Close implements dispatch.Subscription.
func (s *stream) Close() {
	s.l.Close()
	s.e.mu.Lock()
	delete(s.e.streams, s)
	s.e.mu.Unlock()
}
