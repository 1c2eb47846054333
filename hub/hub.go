// Package hub is the ready event source of a server: the application (and
// extensions) publish change events on a Hub, which hands each to every
// listen stream and initialize-era session whose filter names it, and a
// Registry holds the tools, prompts, resources and resource templates
// that change while the server runs, publishing its list changes through
// a Hub.
//
// The package sits above dispatch and reaches it only through dispatch's
// interfaces: a Hub is a dispatch.SubscriptionSource and SessionSource,
// a Registry a dispatch.Catalog. Any other implementation of those
// interfaces serves a Runtime as well.
package hub

import (
	"context"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
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

// defaultBuffer is a listener's buffer unless Options says
// otherwise.
const defaultBuffer = 100

// Options configures a Hub. The zero value is the defaults.
type Options struct {
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

// Hub is a ready [dispatch.SubscriptionSource]: the application (and extensions,
// such as the tasks extension's status changes) publishes change events,
// and the hub hands each to every listener whose filter names it: a list
// kind, a resource URI, or a key of a filter member an extension adds
// ([dispatch.EventExtension]).
// Each listener has a bounded buffer (Options.MaxBuffer) for events its
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
	listeners map[*Listener]struct{}
	byKind    [dispatch.EventResourceUpdated]map[*Listener]struct{} // list-changed kinds, indexed by kind-1
	byURI     map[string]map[*Listener]struct{}                     // resource subscriptions
	byKey     map[memberKey]map[*Listener]struct{}                  // extension filter keys
	taps      []*tap                                                // replaced, never changed in place
	stats     Stats
	onSubs    func() // Options.OnSubscriptionsChanged
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

// tap is one function given to Tap.
type tap struct{ fn func(dispatch.Event) }

// Tap calls fn with every event published from now on, whatever the
// listeners' filters, after they have it: on the publishing goroutine,
// outside the hub's lock, so fn must not block (it may publish on another
// hub). It returns the function that removes the tap. A mounting Runtime
// relays its parts' events this way.
func (h *Hub) Tap(fn func(dispatch.Event)) (remove func()) {
	t := &tap{fn: fn}
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

// New returns a Hub with opts (the zero value for the defaults).
func New(opts Options) *Hub {
	if opts.MaxBuffer <= 0 {
		opts.MaxBuffer = defaultBuffer
	}
	h := &Hub{maxBuffer: opts.MaxBuffer, overflow: opts.Overflow, sink: guard.Sink(opts.Sink, nil), onSubs: opts.OnSubscriptionsChanged,
		listeners: map[*Listener]struct{}{}, byURI: map[string]map[*Listener]struct{}{},
		byKey: map[memberKey]map[*Listener]struct{}{}}
	for i := range h.byKind {
		h.byKind[i] = map[*Listener]struct{}{}
	}
	return h
}

// Stats is a snapshot of a Hub's counters.
type Stats struct {
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
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stats
	s.Listeners = len(h.listeners)
	return s
}

// OpenSubscription implements [dispatch.SubscriptionSource]: it attaches a
// listener for req.Filter and accepts all of it.
func (h *Hub) OpenSubscription(_ context.Context, req *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	return h.Attach(req.Filter, req.Wake), req.Filter, nil
}

// AttachSession implements [dispatch.SessionSource]: it attaches a
// listener for an initialize-era session.
func (h *Hub) AttachSession(f mcp.SubscriptionFilter, wake func()) dispatch.SessionSubscription {
	return h.Attach(f, wake)
}

// eventKey is the URI a resource update matches subscriptions by.
func eventKey(ev dispatch.Event) string {
	if ev.Subscribed != "" {
		return ev.Subscribed
	}
	return ev.URI
}

// Attach adds a listener for the events f names. wake is called, without
// blocking and outside the hub's lock, when the listener had nothing to
// return from Next and now has (an event, or its completion). Close the
// listener when done with it.
func (h *Hub) Attach(f mcp.SubscriptionFilter, wake func()) *Listener {
	if wake == nil {
		wake = func() {}
	}
	l := &Listener{hub: h, wake: wake}
	h.mu.Lock()
	defer h.unlock()
	h.listeners[l] = struct{}{}
	h.stats.Opened++
	for _, k := range [...]struct {
		on   bool
		kind dispatch.EventKind
	}{{f.ToolsListChanged, dispatch.EventToolsListChanged}, {f.PromptsListChanged, dispatch.EventPromptsListChanged}, {f.ResourcesListChanged, dispatch.EventResourcesListChanged}} {
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
func (h *Hub) Publish(ev dispatch.Event) (dispatch.PublishResult, error) {
	if err := ev.Validate(); err != nil {
		return dispatch.PublishResult{}, err
	}
	var r dispatch.PublishResult
	var wakes []func()
	h.mu.Lock()
	var set map[*Listener]struct{}
	switch ev.Kind {
	case dispatch.EventResourceUpdated:
		set = h.byURI[eventKey(ev)]
	case dispatch.EventExtension:
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
func (h *Hub) ToolsListChanged() dispatch.PublishResult {
	r, _ := h.Publish(dispatch.Event{Kind: dispatch.EventToolsListChanged})
	return r
}

// PromptsListChanged publishes notifications/prompts/list_changed.
func (h *Hub) PromptsListChanged() dispatch.PublishResult {
	r, _ := h.Publish(dispatch.Event{Kind: dispatch.EventPromptsListChanged})
	return r
}

// ResourcesListChanged publishes notifications/resources/list_changed.
func (h *Hub) ResourcesListChanged() dispatch.PublishResult {
	r, _ := h.Publish(dispatch.Event{Kind: dispatch.EventResourcesListChanged})
	return r
}

// ResourceUpdated publishes notifications/resources/updated for uri to
// the listeners subscribed to it. It fails with ErrInvalidEvent when uri
// is not absolute.
func (h *Hub) ResourceUpdated(uri string) (dispatch.PublishResult, error) {
	return h.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: uri})
}

// Complete ends every listener attached now gracefully: each still
// returns the events it has buffered, then
// [dispatch.ErrSubscriptionComplete], and
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

func (h *Hub) subscribeLocked(l *Listener, uri string) {
	if _, ok := l.uris[uri]; ok {
		return
	}
	if l.uris == nil {
		l.uris = map[string]struct{}{}
	}
	l.uris[uri] = struct{}{}
	set := h.byURI[uri]
	if set == nil {
		set = map[*Listener]struct{}{}
		h.byURI[uri] = set
		h.subsChanged = true
	}
	set[l] = struct{}{}
}

// memberKey is one key of an extension's filter member.
type memberKey struct{ member, key string }

// followLocked adds a key of an extension filter member to l.
func (h *Hub) followLocked(l *Listener, k memberKey) {
	if l.keys == nil {
		l.keys = map[memberKey]struct{}{}
	}
	l.keys[k] = struct{}{}
	set := h.byKey[k]
	if set == nil {
		set = map[*Listener]struct{}{}
		h.byKey[k] = set
	}
	set[l] = struct{}{}
}

func (h *Hub) unsubscribeLocked(l *Listener, uri string) {
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

func (h *Hub) detachLocked(l *Listener) {
	if l.closed {
		return
	}
	l.closed = true
	delete(h.listeners, l)
	for k := dispatch.EventToolsListChanged; k < dispatch.EventResourceUpdated; k++ {
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

// emitPublished reports one Publish: the event's notification method
// (never its URI, which is data), how many streams it matched, and the
// events lost to full buffers.
func (h *Hub) emitPublished(ev dispatch.Event, r dispatch.PublishResult, open int) {
	topic := ev.Kind.Method()
	if ev.Kind == dispatch.EventExtension {
		topic = ev.Method // never the key: a task id grants access to its task
	}
	h.sink.Subscription(instrumentation.SubscriptionEvent{
		Kind: instrumentation.SubscriptionPublished, Topic: topic, Matched: r.Matched, Open: open,
	})
	if r.Dropped > 0 {
		h.sink.Subscription(instrumentation.SubscriptionEvent{
			Kind: instrumentation.SubscriptionOverflowed, Topic: topic, Dropped: r.Dropped, Open: open,
		})
	}
}
