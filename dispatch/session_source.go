// The interface initialize-era sessions get their change notifications
// through.

package dispatch

import "github.com/snodo-go/snodo/mcp"

// SessionSource feeds the change notifications of initialize-era
// sessions (protocol revisions before 2026-07-28): the list changes the
// server advertised listChanged for, and notifications/resources/updated
// for the URIs the client named in resources/subscribe. When the source
// given with [WithSubscriptions] is also a SessionSource, the server
// advertises resources.subscribe to these clients and each session
// attaches to it at initialize. A hub (package hub) is one; a source that
// fans events out to other processes can be one too, so that a session
// hears changes published anywhere.
type SessionSource interface {
	// AttachSession opens the feed of one session for the list changes
	// f names (it names no resources: those come later, through
	// Subscribe). wake has the contract of SubscriptionRequest.Wake.
	// The session closes the feed when it ends.
	AttachSession(f mcp.SubscriptionFilter, wake func()) SessionSubscription
}

// SessionSubscription is the feed of one initialize-era session: a
// [Subscription] whose resource URIs change as resources/subscribe and
// resources/unsubscribe arrive. Its methods are called from any
// goroutine and must be safe for concurrent use; none may block.
type SessionSubscription interface {
	Subscription
	// Subscribe adds resource URIs to the feed; URIs it has already are
	// ignored.
	Subscribe(uris ...string)
	// Unsubscribe removes resource URIs from the feed.
	Unsubscribe(uris ...string)
}
