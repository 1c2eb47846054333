// Transport-author API: a Session's change notifications, which the
// transport drains outside any request (SetWake, NextNotification).

package dispatch

import (
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Change notifications for initialize-era clients. Such a client gets
// notifications/{tools,prompts,resources}/list_changed for the kinds the
// server advertised listChanged for, and notifications/resources/updated
// for the URIs it named in resources/subscribe, outside any request, fed
// by the same source as subscriptions/listen: its session attaches one
// feed to the Runtime's SessionSource at initialize. The transport pulls the
// frames (NextNotification) when the session wakes it and writes them
// where such notifications go: the connection on stdio, the session's GET
// stream on HTTP.

// SetWake sets the function the session calls, without blocking and from
// any goroutine, when NextNotification may have a frame. Transports set it
// when they create the session; nil turns it off.
func (s *Session) SetWake(wake func()) {
	s.mu.Lock()
	s.wakeFn = wake
	s.mu.Unlock()
}

// wake is the wake function of the session's feed.
func (s *Session) wake() {
	s.mu.Lock()
	w := s.wakeFn
	s.mu.Unlock()
	if w != nil {
		w()
	}
}

// NextNotification returns the session's next change notification frame
// (ASCII JSON, no newline), or nil when none is ready: the session calls
// its wake function when one is. Events the session no longer wants, or
// that cannot be encoded, are skipped.
func (s *Session) NextNotification() []byte {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	l := s.listener
	s.mu.Unlock()
	if l == nil {
		return nil
	}
	for {
		ev, err := l.Next()
		if err != nil {
			return nil // none ready (wake follows), or the listener ended
		}
		if b, err := EncodeEvent(ev, jsonrpc.ID{}); err == nil {
			return b
		}
	}
}

// attachSource attaches the session to src for the list changes f names;
// the feed replaces an earlier one.
func (s *Session) attachSource(src SessionSource, f mcp.SubscriptionFilter) {
	l := src.AttachSession(f, s.wake)
	s.mu.Lock()
	old, closed := s.listener, s.closed
	s.listener, s.subs = l, nil
	if closed {
		s.listener = nil
	}
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if closed {
		l.Close()
		return
	}
	// A feed wakes its consumer only after a Next found nothing:
	// have the transport pull once, so the first event wakes it.
	s.wake()
}

// subscribe adds a resource URI to the session's listener. It reports
// false when the session already holds maxResourceSubscriptions others.
func (s *Session) subscribe(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener == nil {
		return true
	}
	if _, ok := s.subs[uri]; ok {
		return true
	}
	if len(s.subs) >= maxResourceSubscriptions {
		return false
	}
	if s.subs == nil {
		s.subs = map[string]struct{}{}
	}
	s.subs[uri] = struct{}{}
	s.listener.Subscribe(uri)
	return true
}

// unsubscribe removes a resource URI from the session's listener.
func (s *Session) unsubscribe(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener == nil {
		return
	}
	delete(s.subs, uri)
	s.listener.Unsubscribe(uri)
}

// subscriptions returns the resource URIs the client subscribed to.
func (s *Session) subscriptions() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.subs))
	for u := range s.subs {
		out = append(out, u)
	}
	return out
}
