// Following the remote's changes: its list changes refresh the catalog,
// and its resource updates reach the proxy's clients subscribed to them.

package proxy

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/mcp"
)

// maxUpstreamURIs bounds the resource URIs followed upstream: the
// protocol's bound on one subscription filter.
const maxUpstreamURIs = 1000

// canSubscribe reports whether the remote serves resource subscriptions.
func (b *Backend) canSubscribe() bool {
	r := b.client.Server().Capabilities.Resources
	return r != nil && r.Subscribe
}

// subscriptionsChanged is the hub's OnSubscriptionsChanged: the stream
// is opened again with the URIs the proxy's clients subscribe to now.
func (b *Backend) subscriptionsChanged() {
	if !b.canSubscribe() {
		return
	}
	b.resubMu.Lock()
	b.resubPending = true
	if b.cancelFollow != nil {
		b.cancelFollow()
	}
	b.resubMu.Unlock()
	select {
	case b.resubCh <- struct{}{}:
	default:
	}
}

// wantsStream reports whether there is anything to follow: list changes
// the remote announces, or resources the proxy's clients subscribe to.
func (b *Backend) wantsStream() bool {
	caps := b.client.Server().Capabilities
	return caps.Tools != nil && caps.Tools.ListChanged || caps.Prompts != nil && caps.Prompts.ListChanged ||
		caps.Resources != nil && caps.Resources.ListChanged || b.canSubscribe() && len(b.hub.SubscribedURIs()) > 0
}

// subscribe opens the stream of the remote's changes (its list changes,
// and the resources the proxy's clients subscribe to), for as long as
// life lasts; nil when there is nothing to follow or the stream cannot be
// opened (logged).
func (b *Backend) subscribe(ctx, life context.Context) *client.Subscription {
	b.resubMu.Lock()
	b.resubPending = false
	select {
	case <-b.resubCh:
	default:
	}
	b.resubMu.Unlock()
	caps := b.client.Server().Capabilities
	f := mcp.SubscriptionFilter{
		ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
	}
	if b.canSubscribe() && b.hub != nil {
		uris := b.hub.SubscribedURIs()
		if len(uris) > maxUpstreamURIs {
			b.logger.Warn("proxy: more resources subscribed than one stream carries; the rest are not followed",
				"backend", b.name, "subscribed", len(uris), "followed", maxUpstreamURIs)
			uris = uris[:maxUpstreamURIs]
		}
		f.ResourceSubscriptions = uris
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 {
		return nil
	}
	// The stream lives past ctx; ctx bounds the opening.
	opened := make(chan struct{})
	defer close(opened)
	go func() {
		select {
		case <-ctx.Done():
			b.stop()
		case <-opened:
		}
	}()
	sub, err := b.client.Listen(life, f)
	if err != nil {
		b.logger.Warn("proxy: the backend's changes cannot be followed", "backend", b.name, "error", err)
		return nil
	}
	b.streams.Add(1)
	return sub
}

// watch follows the remote's changes until ctx ends: it opens the stream
// again when the proxy's clients change their resource subscriptions,
// and, with reconnection on, once the connection is back after the
// stream ended with it.
func (b *Backend) watch(ctx context.Context, sub *client.Subscription) {
	defer close(b.done)
	for {
		lost := false
		if sub != nil {
			lost = b.follow(ctx, sub)
			sub.Close()
			sub = nil
		}
		switch {
		case ctx.Err() != nil:
			return
		case lost && b.cfg.reconnect == nil:
			return
		case lost:
			sub = b.resubscribe(ctx)
			continue
		}
		b.resubMu.Lock()
		pending := b.resubPending
		b.resubMu.Unlock()
		if !pending {
			// Nothing to follow until a client subscribes.
			select {
			case <-b.resubCh:
			case <-ctx.Done():
				return
			}
		}
		sub = b.subscribe(ctx, ctx)
	}
}

// follow handles the stream's events until it ends (lost, true) or the
// subscriptions change (false): a list change refreshes the catalog, a
// resource update is published to the proxy's subscribers.
func (b *Backend) follow(ctx context.Context, sub *client.Subscription) (lost bool) {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.resubMu.Lock()
	b.cancelFollow = cancel
	if b.resubPending {
		cancel()
	}
	b.resubMu.Unlock()
	defer func() {
		b.resubMu.Lock()
		b.cancelFollow = nil
		b.resubMu.Unlock()
	}()
	for {
		ev, err := sub.Next(fctx)
		if err != nil {
			if ctx.Err() != nil || fctx.Err() != nil {
				return false
			}
			b.logger.Warn("proxy: the backend's change stream ended", "backend", b.name, "error", err)
			return true
		}
		if ev.Method == "notifications/resources/updated" {
			_, _ = b.hub.ResourceUpdated(ev.URI)
			continue
		}
		if err := b.Refresh(ctx); err != nil && ctx.Err() == nil {
			b.logger.Warn("proxy: refreshing the backend's catalog failed", "backend", b.name, "error", err)
		}
	}
}

// resubscribe refreshes the catalog (which reconnects the client) and
// opens the change stream again, waiting with exponential backoff
// between attempts, until it succeeds or ctx ends (nil).
func (b *Backend) resubscribe(ctx context.Context) *client.Subscription {
	r := *b.cfg.reconnect
	delay, maxDelay := r.InitialDelay, r.MaxDelay
	if delay <= 0 {
		delay = 100 * time.Millisecond
	}
	if maxDelay < delay {
		maxDelay = max(delay, 5*time.Second)
	}
	for {
		if err := b.Refresh(ctx); err == nil {
			if sub := b.subscribe(ctx, ctx); sub != nil || !b.wantsStream() {
				b.logger.Info("proxy: following the backend's changes again", "backend", b.name)
				return sub
			}
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		}
		delay = min(delay*2, maxDelay)
	}
}
