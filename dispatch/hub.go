package dispatch

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/guard"
	"github.com/snodo-go/snodo/mcp"
)

// Overflow says what a Hub does when an event arrives for a listener
// whose buffer is full.
type Overflow uint8

const (
	// DropOldest drops the oldest buffered event to make room for the new
	// one (the default): a slow client misses old changes, not the latest.
	DropOldest Overflow = iota
	// DropNewest drops the new event and keeps what is buffered.
	DropNewest
)

// DefaultHubBuffer is a listener's buffer unless HubOptions says
// otherwise.
const DefaultHubBuffer = 100

// HubOptions configures a Hub. The zero value is the defaults.
type HubOptions struct {
	// MaxBuffer is the most events one listener holds that its client has
	// not been sent yet. Default 100.
	MaxBuffer int
	// Overflow is the policy when a listener's buffer is full. Default
	// DropOldest.
	Overflow Overflow
	// Sink, when set, hears about every publish and every overflow
	// (instrumentation.SubscriptionPublished and SubscriptionOverflowed).
	Sink instrumentation.Sink
	// OnSubscriptionsChanged, when set, is called after the set of
	// resource URIs some listener subscribes to has changed (a URI
	// gained its first listener or lost its last), outside the hub's
	// lock, on the goroutine that changed it; it must not block.
	// [Hub.SubscribedURIs] returns the set. A proxy follows it to
	// subscribe upstream to what its own clients subscribe to.
	OnSubscriptionsChanged func()
}

// Hub is a ready [SubscriptionSource]: the application (and extensions,
// such as the tasks extension's status changes) publishes change events,
// and the hub hands each to every listener whose filter names it: a list
// kind, a resource URI, or a key of a filter member an extension adds
// ([EventExtension]).
// Each listener has a bounded buffer (HubOptions.MaxBuffer) for events its
// client has not been sent yet; when it is full the overflow policy drops
// the oldest or the newest. Publishing never blocks and never waits for a
// client.
//
// Listeners are the subscriptions/listen streams it opened, and any
// consumer attached with [Hub.Attach] (an initialize-era session, which
// adds and removes resource URIs as resources/subscribe and
// resources/unsubscribe arrive). A Hub may serve several Runtimes and
// transports at once; its methods are safe for concurrent use.
type Hub struct {
	maxBuffer int
	overflow  Overflow
	sink      instrumentation.Sink // nil: no events

	mu        sync.Mutex
	listeners map[*HubListener]struct{}
	byKind    [EventResourceUpdated]map[*HubListener]struct{} // list-changed kinds, indexed by kind-1
	byURI     map[string]map[*HubListener]struct{}            // resource subscriptions
	byKey     map[memberKey]map[*HubListener]struct{}         // extension filter keys
	taps      []*hubTap                                       // replaced, never changed in place
	stats     HubStats
	onSubs    func() // HubOptions.OnSubscriptionsChanged
	// subsChanged: byURI gained or lost a key since the lock was taken.
	subsChanged bool
}

// unlock releases the hub's lock, then tells OnSubscriptionsChanged when
// the subscribed URIs changed meanwhile.
func (h *Hub) unlock() {
	changed := h.subsChanged
	h.subsChanged = false
	h.mu.Unlock()
	if changed && h.onSubs != nil {
		h.onSubs()
	}
}

// SubscribedURIs returns the resource URIs some listener subscribes to,
// sorted.
func (h *Hub) SubscribedURIs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.byURI))
	for u := range h.byURI {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// hubTap is one function given to Tap.
type hubTap struct{ fn func(Event) }

// Tap calls fn with every event published from now on, whatever the
// listeners' filters, after they have it: on the publishing goroutine,
// outside the hub's lock, so fn must not block (it may publish on another
// hub). It returns the function that removes the tap. A mounting Runtime
// relays its parts' events this way.
func (h *Hub) Tap(fn func(Event)) (remove func()) {
	t := &hubTap{fn: fn}
	h.mu.Lock()
	h.taps = append(slices.Clip(h.taps), t)
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if i := slices.Index(h.taps, t); i >= 0 {
			h.taps = slices.Delete(slices.Clone(h.taps), i, i+1)
		}
	}
}

// NewHub returns a Hub with opts (the zero value for the defaults).
func NewHub(opts HubOptions) *Hub {
	if opts.MaxBuffer <= 0 {
		opts.MaxBuffer = DefaultHubBuffer
	}
	h := &Hub{maxBuffer: opts.MaxBuffer, overflow: opts.Overflow, sink: guard.Sink(opts.Sink, nil), onSubs: opts.OnSubscriptionsChanged,
		listeners: map[*HubListener]struct{}{}, byURI: map[string]map[*HubListener]struct{}{},
		byKey: map[memberKey]map[*HubListener]struct{}{}}
	for i := range h.byKind {
		h.byKind[i] = map[*HubListener]struct{}{}
	}
	return h
}

// PublishResult counts what one Publish did.
type PublishResult struct {
	// Matched is the number of listeners whose filter names the event.
	Matched int
	// Delivered counts listeners that were waiting for an event: theirs
	// goes to the client at once.
	Delivered int
	// Buffered counts listeners that were still sending earlier events:
	// the event waits in their buffer.
	Buffered int
	// Dropped counts events lost to a full buffer: the new event under
	// DropNewest, the oldest buffered one under DropOldest (the new one
	// is then also counted in Buffered).
	Dropped int
}

// HubStats is a snapshot of a Hub's counters.
type HubStats struct {
	// Listeners is the number of listeners attached now.
	Listeners int
	// Opened counts listeners ever attached.
	Opened int64
	// Published counts events published; Matched, Delivered, Buffered
	// and Dropped sum the PublishResults.
	Published, Matched, Delivered, Buffered, Dropped int64
	// Completed counts listeners ended gracefully by Complete.
	Completed int64
}

// Stats returns the hub's counters.
func (h *Hub) Stats() HubStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stats
	s.Listeners = len(h.listeners)
	return s
}

// OpenSubscription implements [SubscriptionSource]: it attaches a
// listener for req.Filter and accepts all of it.
func (h *Hub) OpenSubscription(_ context.Context, req *SubscriptionRequest) (Subscription, mcp.SubscriptionFilter, error) {
	return h.Attach(req.Filter, req.Wake), req.Filter, nil
}

// Attach adds a listener for the events f names. wake is called, without
// blocking and outside the hub's lock, when the listener had nothing to
// return from Next and now has (an event, or its completion). Close the
// listener when done with it.
func (h *Hub) Attach(f mcp.SubscriptionFilter, wake func()) *HubListener {
	if wake == nil {
		wake = func() {}
	}
	l := &HubListener{hub: h, wake: wake}
	h.mu.Lock()
	defer h.unlock()
	h.listeners[l] = struct{}{}
	h.stats.Opened++
	for _, k := range [...]struct {
		on   bool
		kind EventKind
	}{{f.ToolsListChanged, EventToolsListChanged}, {f.PromptsListChanged, EventPromptsListChanged}, {f.ResourcesListChanged, EventResourcesListChanged}} {
		if k.on {
			l.kinds |= 1 << k.kind
			h.byKind[k.kind-1][l] = struct{}{}
		}
	}
	for _, u := range f.ResourceSubscriptions {
		h.subscribeLocked(l, u)
	}
	for member, keys := range f.Keys {
		for _, k := range keys {
			h.followLocked(l, memberKey{member, k})
		}
	}
	return l
}

// Publish hands ev to every listener whose filter names it and reports
// what happened. An invalid event (an unknown kind, a resource update
// without an absolute URI) reaches nobody and is an error.
func (h *Hub) Publish(ev Event) (PublishResult, error) {
	if err := ev.check(); err != nil {
		return PublishResult{}, err
	}
	var r PublishResult
	var wakes []func()
	h.mu.Lock()
	var set map[*HubListener]struct{}
	switch ev.Kind {
	case EventResourceUpdated:
		set = h.byURI[ev.key()]
	case EventExtension:
		set = h.byKey[memberKey{ev.Member, ev.Key}]
	default:
		set = h.byKind[ev.Kind-1]
	}
	for l := range set {
		r.Matched++
		if w := l.pushLocked(ev, &r); w != nil {
			wakes = append(wakes, w)
		}
	}
	h.stats.Published++
	h.stats.Matched += int64(r.Matched)
	h.stats.Delivered += int64(r.Delivered)
	h.stats.Buffered += int64(r.Buffered)
	h.stats.Dropped += int64(r.Dropped)
	open := len(h.listeners)
	taps := h.taps
	h.mu.Unlock()
	for _, w := range wakes {
		w()
	}
	for _, t := range taps {
		t.fn(ev)
	}
	if h.sink != nil {
		h.emitPublished(ev, r, open)
	}
	return r, nil
}

// ToolsListChanged publishes notifications/tools/list_changed.
func (h *Hub) ToolsListChanged() PublishResult {
	r, _ := h.Publish(Event{Kind: EventToolsListChanged})
	return r
}

// PromptsListChanged publishes notifications/prompts/list_changed.
func (h *Hub) PromptsListChanged() PublishResult {
	r, _ := h.Publish(Event{Kind: EventPromptsListChanged})
	return r
}

// ResourcesListChanged publishes notifications/resources/list_changed.
func (h *Hub) ResourcesListChanged() PublishResult {
	r, _ := h.Publish(Event{Kind: EventResourcesListChanged})
	return r
}

// ResourceUpdated publishes notifications/resources/updated for uri to
// the listeners subscribed to it. It fails with ErrInvalidEvent when uri
// is not absolute.
func (h *Hub) ResourceUpdated(uri string) (PublishResult, error) {
	return h.Publish(Event{Kind: EventResourceUpdated, URI: uri})
}

// Complete ends every listener attached now gracefully: each still
// returns the events it has buffered, then ErrSubscriptionComplete, and
// its stream sends the final result. Listeners attached later are not
// affected. It returns the number of listeners it ended.
func (h *Hub) Complete() int {
	var wakes []func()
	h.mu.Lock()
	n := 0
	for l := range h.listeners {
		if l.completing {
			continue
		}
		l.completing = true
		n++
		if l.waiting {
			l.waiting = false
			wakes = append(wakes, l.wake)
		}
	}
	h.stats.Completed += int64(n)
	h.mu.Unlock()
	for _, w := range wakes {
		w()
	}
	return n
}

func (h *Hub) subscribeLocked(l *HubListener, uri string) {
	if _, ok := l.uris[uri]; ok {
		return
	}
	if l.uris == nil {
		l.uris = map[string]struct{}{}
	}
	l.uris[uri] = struct{}{}
	set := h.byURI[uri]
	if set == nil {
		set = map[*HubListener]struct{}{}
		h.byURI[uri] = set
		h.subsChanged = true
	}
	set[l] = struct{}{}
}

// memberKey is one key of an extension's filter member.
type memberKey struct{ member, key string }

// followLocked adds a key of an extension filter member to l.
func (h *Hub) followLocked(l *HubListener, k memberKey) {
	if l.keys == nil {
		l.keys = map[memberKey]struct{}{}
	}
	l.keys[k] = struct{}{}
	set := h.byKey[k]
	if set == nil {
		set = map[*HubListener]struct{}{}
		h.byKey[k] = set
	}
	set[l] = struct{}{}
}

func (h *Hub) unsubscribeLocked(l *HubListener, uri string) {
	if _, ok := l.uris[uri]; !ok {
		return
	}
	delete(l.uris, uri)
	if set := h.byURI[uri]; set != nil {
		delete(set, l)
		if len(set) == 0 {
			delete(h.byURI, uri)
			h.subsChanged = true
		}
	}
}

// HubListener is one consumer attached to a Hub. It is a [Subscription]:
// Next returns its events one at a time, oldest first. Its methods are
// safe for concurrent use.
type HubListener struct {
	hub  *Hub
	wake func()

	// Guarded by hub.mu.
	kinds      uint8                  // bit 1<<kind for each list-changed kind
	uris       map[string]struct{}    // resource subscriptions
	keys       map[memberKey]struct{} // extension filter keys
	buf        []Event                // ring of pending events, grown up to maxBuffer
	head, n    int
	waiting    bool // Next found nothing: wake on the next event
	completing bool // Complete was called: end once the buffer is empty
	closed     bool
	dropped    int64
}

// ErrListenerClosed is returned by Next after Close.
var ErrListenerClosed = errors.New("dispatch: hub listener closed")

// Next returns the oldest pending event; ErrNoEvent when there is none
// (wake is called when one arrives); ErrSubscriptionComplete once the hub
// completed the listener and its buffer is empty; ErrListenerClosed after
// Close.
func (l *HubListener) Next() (Event, error) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	switch {
	case l.closed:
		return Event{}, ErrListenerClosed
	case l.n > 0:
		ev := l.buf[l.head]
		l.buf[l.head] = Event{}
		l.head = (l.head + 1) % len(l.buf)
		l.n--
		return ev, nil
	case l.completing:
		h.detachLocked(l)
		return Event{}, ErrSubscriptionComplete
	}
	l.waiting = true
	return Event{}, ErrNoEvent
}

// Subscribe adds resource URIs to the listener's filter (an
// initialize-era resources/subscribe). URIs it already has are ignored.
func (l *HubListener) Subscribe(uris ...string) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	if l.closed {
		return
	}
	for _, u := range uris {
		h.subscribeLocked(l, u)
	}
}

// Unsubscribe removes resource URIs from the listener's filter.
func (l *HubListener) Unsubscribe(uris ...string) {
	h := l.hub
	h.mu.Lock()
	defer h.unlock()
	for _, u := range uris {
		h.unsubscribeLocked(l, u)
	}
}

// Dropped returns how many of the listener's events were lost to
// overflow.
func (l *HubListener) Dropped() int64 {
	l.hub.mu.Lock()
	defer l.hub.mu.Unlock()
	return l.dropped
}

// Close detaches the listener; its pending events are discarded. It is
// idempotent.
func (l *HubListener) Close() {
	h := l.hub
	h.mu.Lock()
	h.detachLocked(l)
	h.unlock()
}

func (h *Hub) detachLocked(l *HubListener) {
	if l.closed {
		return
	}
	l.closed = true
	delete(h.listeners, l)
	for k := EventToolsListChanged; k < EventResourceUpdated; k++ {
		if l.kinds&(1<<k) != 0 {
			delete(h.byKind[k-1], l)
		}
	}
	for u := range l.uris {
		h.unsubscribeLocked(l, u)
	}
	for k := range l.keys {
		if set := h.byKey[k]; set != nil {
			delete(set, l)
			if len(set) == 0 {
				delete(h.byKey, k)
			}
		}
	}
	l.keys = nil
	l.buf, l.n, l.head = nil, 0, 0
}

// pushLocked buffers ev for l, applying the overflow policy, counts the
// outcome in r, and returns the wake function to call when l was waiting.
func (l *HubListener) pushLocked(ev Event, r *PublishResult) func() {
	limit := l.hub.maxBuffer
	if l.n == limit {
		r.Dropped++
		l.dropped++
		if l.hub.overflow == DropNewest {
			return nil
		}
		// Drop the oldest: the new event takes its slot at the tail.
		l.buf[l.head] = ev
		l.head = (l.head + 1) % len(l.buf)
		r.Buffered++
		return nil
	}
	if l.n == len(l.buf) {
		l.grow(limit)
	}
	l.buf[(l.head+l.n)%len(l.buf)] = ev
	l.n++
	if l.waiting {
		l.waiting = false
		r.Delivered++
		return l.wake
	}
	r.Buffered++
	return nil
}

// grow enlarges the ring (doubling, at most limit), keeping order. An
// idle listener holds no buffer at all.
func (l *HubListener) grow(limit int) {
	size := min(max(4, 2*len(l.buf)), limit)
	nb := make([]Event, size)
	for i := 0; i < l.n; i++ {
		nb[i] = l.buf[(l.head+i)%len(l.buf)]
	}
	l.buf, l.head = nb, 0
}
