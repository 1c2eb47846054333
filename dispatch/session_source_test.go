// Tests that an initialize-era session is fed by any SessionSource, not
// only a hub.

package dispatch_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// queueSource is a minimal SessionSource (and SubscriptionSource) that is
// not a hub: each feed queues the events its filter names, without bound.
type queueSource struct {
	mu    sync.Mutex
	feeds map[*queueFeed]struct{}
}

func newQueueSource() *queueSource { return &queueSource{feeds: map[*queueFeed]struct{}{}} }

func (s *queueSource) attach(f mcp.SubscriptionFilter, wake func()) *queueFeed {
	q := &queueFeed{src: s, filter: f, wake: wake}
	s.mu.Lock()
	s.feeds[q] = struct{}{}
	s.mu.Unlock()
	return q
}

func (s *queueSource) OpenSubscription(_ context.Context, req *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	return s.attach(req.Filter, req.Wake), req.Filter, nil
}

func (s *queueSource) AttachSession(f mcp.SubscriptionFilter, wake func()) dispatch.SessionSubscription {
	return s.attach(f, wake)
}

// publish queues ev on every feed whose filter names it and wakes those
// that were waiting.
func (s *queueSource) publish(ev dispatch.Event) {
	var wakes []func()
	s.mu.Lock()
	for q := range s.feeds {
		if q.wants(ev) {
			q.queue = append(q.queue, ev)
			if q.waiting {
				q.waiting = false
				wakes = append(wakes, q.wake)
			}
		}
	}
	s.mu.Unlock()
	for _, w := range wakes {
		w()
	}
}

func (s *queueSource) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.feeds)
}

// queueFeed is one feed of a queueSource; its fields are guarded by the
// source's lock.
type queueFeed struct {
	src     *queueSource
	filter  mcp.SubscriptionFilter
	wake    func()
	queue   []dispatch.Event
	waiting bool
}

func (q *queueFeed) wants(ev dispatch.Event) bool {
	switch ev.Kind {
	case dispatch.EventToolsListChanged:
		return q.filter.ToolsListChanged
	case dispatch.EventPromptsListChanged:
		return q.filter.PromptsListChanged
	case dispatch.EventResourcesListChanged:
		return q.filter.ResourcesListChanged
	case dispatch.EventResourceUpdated:
		return slices.Contains(q.filter.ResourceSubscriptions, ev.URI)
	}
	return false
}

func (q *queueFeed) Next() (dispatch.Event, error) {
	q.src.mu.Lock()
	defer q.src.mu.Unlock()
	if len(q.queue) == 0 {
		q.waiting = true
		return dispatch.Event{}, dispatch.ErrNoEvent
	}
	ev := q.queue[0]
	q.queue = q.queue[1:]
	return ev, nil
}

func (q *queueFeed) Close() {
	q.src.mu.Lock()
	delete(q.src.feeds, q)
	q.src.mu.Unlock()
}

func (q *queueFeed) Subscribe(uris ...string) {
	q.src.mu.Lock()
	defer q.src.mu.Unlock()
	for _, u := range uris {
		if !slices.Contains(q.filter.ResourceSubscriptions, u) {
			q.filter.ResourceSubscriptions = append(q.filter.ResourceSubscriptions, u)
		}
	}
}

func (q *queueFeed) Unsubscribe(uris ...string) {
	q.src.mu.Lock()
	defer q.src.mu.Unlock()
	q.filter.ResourceSubscriptions = slices.DeleteFunc(q.filter.ResourceSubscriptions, func(u string) bool { return slices.Contains(uris, u) })
}

// TestLegacySubscriptionsFromAnySessionSource: the SessionSource
// interface is all an initialize-era session needs. A source that is not
// a hub is offered as resources.subscribe and listChanged, the session
// attaches to it at initialize, follows resources/subscribe and
// resources/unsubscribe through it, hears what it publishes, and closes
// its feed when it ends.
func TestLegacySubscriptionsFromAnySessionSource(t *testing.T) {
	src := newQueueSource()
	rt := legacyRuntime(t, nil, dispatch.WithSubscriptions(src))
	for _, v := range legacyVersions {
		c, r := initialize(t, rt, v, map[string]any{})
		caps := r["capabilities"].(map[string]any)
		if res := caps["resources"].(map[string]any); res["subscribe"] != true || res["listChanged"] != true {
			t.Fatalf("%s: subscribe not offered with a SessionSource: %v", v, caps)
		}
		if caps["tools"].(map[string]any)["listChanged"] != true {
			t.Fatalf("%s: tools listChanged not offered: %v", v, caps)
		}
		if n := src.open(); n != 1 {
			t.Fatalf("%s: %d feeds open after initialize, want 1", v, n)
		}
		woken := make(chan struct{}, 1)
		c.sess.SetWake(func() {
			select {
			case woken <- struct{}{}:
			default:
			}
		})
		if f := c.sess.NextNotification(); f != nil {
			t.Fatalf("%s: a notification before any change: %s", v, f)
		}
		next := func(want string) {
			t.Helper()
			select {
			case <-woken:
			default:
				t.Fatalf("%s: the session was not woken", v)
			}
			f := c.sess.NextNotification()
			if err := testkit.ValidateFrame(v, f, ""); err != nil {
				t.Fatalf("%s: %v\n%s", v, err, f)
			}
			if string(f) != want {
				t.Fatalf("%s: got %s, want %s", v, f, want)
			}
			// Pulled dry, as a transport does: the next event wakes it.
			if f := c.sess.NextNotification(); f != nil {
				t.Fatalf("%s: an extra notification: %s", v, f)
			}
		}
		src.publish(dispatch.Event{Kind: dispatch.EventToolsListChanged})
		next(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)

		resultOf(t, c.call("resources/subscribe", map[string]any{"uri": "test://static"}))
		src.publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "test://static"})
		next(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://static"}}`)

		resultOf(t, c.call("resources/unsubscribe", map[string]any{"uri": "test://static"}))
		src.publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "test://static"})
		if f := c.sess.NextNotification(); f != nil {
			t.Fatalf("%s: an update after unsubscribe: %s", v, f)
		}
		c.sess.Close()
		if n := src.open(); n != 0 {
			t.Fatalf("%s: closing the session left %d feeds open", v, n)
		}
	}
}
