package dispatch

// The SubscriptionSource interface that serves listen streams, and its option.

import (
	"context"
	"errors"

	"github.com/snodo-go/snodo/mcp"
)

// SubscriptionSource opens the event feeds of subscriptions/listen
// streams. A hub (package hub) is a ready one; an application may
// implement its own.
// Configure it with [WithSubscriptions].
//
// Every method of a source and of the subscriptions it opens runs on the
// goroutine that serves the stream (on stdio, the stream's actor, which
// serves nothing else), with the same panic isolation as every other
// application callback. None may block: a source that needs to wait for
// something returns [ErrNoEvent] and calls the wake function later.
type SubscriptionSource interface {
	// OpenSubscription opens a feed for req.Filter and returns it with
	// the subset of req.Filter it will honour. A subset naming anything
	// req.Filter does not is refused: the feed is closed and the client
	// gets -32603. A returned *jsonrpc.Error (errors.As) is sent as is;
	// any other error is -32603, logged and not sent. ctx carries the
	// request (RequestInfoFromContext) and ends when OpenSubscription
	// returns; Close ends the feed.
	OpenSubscription(ctx context.Context, req *SubscriptionRequest) (Subscription, mcp.SubscriptionFilter, error)
}

// SubscriptionRequest is what a SubscriptionSource is asked to open.
type SubscriptionRequest struct {
	// Info describes the listen request, its verified principal included.
	Info *RequestInfo
	// Filter is what the client asked for, limited to what the server
	// offers (advertised kinds, resources the Authorizer allows).
	Filter mcp.SubscriptionFilter
	// Wake tells the stream's driver that Next may have something to
	// return. After Next returned ErrNoEvent, the source must call Wake
	// once an event is ready or the feed has ended; extra calls are
	// harmless. Wake never blocks and may be called from any goroutine,
	// also after Close.
	Wake func()
}

// Subscription is one open feed: events are pulled one at a time, and
// the next one only after the previous one was written to the client, so
// a slow client slows the feed (backpressure reaches the source).
type Subscription interface {
	// Next returns the next event without blocking. It returns
	// ErrNoEvent when none is ready (the source calls Wake when one is),
	// ErrSubscriptionComplete when the feed has ended gracefully (the
	// client gets the stream's final result), or another error to end
	// the stream with an error (-32603 unless it is a *jsonrpc.Error).
	// Events the stream's filter does not name are never sent: the
	// stream drops them.
	Next() (Event, error)
	// Close releases the feed. The stream calls it exactly once,
	// whatever ended the stream (completion, the client cancelling or
	// going away, the connection or request that serves it stopping).
	Close()
}

// Sentinel results of Subscription.Next.
var (
	// ErrNoEvent: no event is ready now; Wake will be called.
	ErrNoEvent = errors.New("dispatch: no subscription event ready")
	// ErrSubscriptionComplete: the feed has ended gracefully.
	ErrSubscriptionComplete = errors.New("dispatch: subscription complete")
)

// WithSubscriptions serves subscriptions/listen from src (a hub of
// package hub, or the application's own source); when src is also a
// [SessionSource] it feeds initialize-era sessions too. Without it the
// method is unknown (-32601). With it, the server advertises listChanged
// for tools and prompts, and listChanged and subscribe for resources, on
// whichever of those component kinds it offers.
func WithSubscriptions(src SubscriptionSource) Option {
	return optionFunc(func(b *builder) error {
		if src == nil {
			return errors.New("dispatch: nil subscription source")
		}
		b.rt.source = src
		return nil
	})
}

// SubscriptionSource returns the source given with [WithSubscriptions],
// or nil.
func (rt *Runtime) SubscriptionSource() SubscriptionSource { return rt.source }

// finishSubscriptions completes New for the subscription features: the
// dynamic catalog takes over the components, and a configured
// source turns on the listChanged and subscribe capabilities.
func (b *builder) finishSubscriptions() error {
	rt := b.rt
	rt.sessions, _ = rt.source.(SessionSource)
	if b.catalog != nil {
		own := &Components{newSnapshot(b.tools, b.prompts, b.resources, b.templates)}
		if err := b.catalog.Adopt(own); err != nil {
			return err
		}
		rt.catalog = dynamicCatalog{b.catalog}
		// The lists may fill up at run time, so every kind is offered
		// from the start.
		if rt.capabilities.Tools == nil {
			rt.capabilities.Tools = &mcp.ListChangedCapability{}
		}
		if rt.capabilities.Prompts == nil {
			rt.capabilities.Prompts = &mcp.ListChangedCapability{}
		}
		if rt.capabilities.Resources == nil {
			rt.capabilities.Resources = &mcp.ResourcesCapability{}
		}
		rt.capabilities.Completions = &struct{}{}
	}
	if rt.source == nil {
		return nil
	}
	if rt.capabilities.Tools != nil {
		rt.capabilities.Tools.ListChanged = true
	}
	if rt.capabilities.Prompts != nil {
		rt.capabilities.Prompts.ListChanged = true
	}
	if rt.capabilities.Resources != nil {
		rt.capabilities.Resources.ListChanged = true
		rt.capabilities.Resources.Subscribe = true
	}
	return nil
}
