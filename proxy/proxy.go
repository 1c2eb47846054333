// Backend: one remote server as a Runtime, its life from Dial to Close.

package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Backend is a remote MCP server served as a [dispatch.Runtime]. Its
// methods are safe for concurrent use.
type Backend struct {
	name   string
	cfg    config
	client *client.Client
	hub    *dispatch.Hub
	reg    *dispatch.Registry
	rt     *dispatch.Runtime
	logger *slog.Logger

	refreshMu sync.Mutex // one refresh at a time
	have      catalogState

	stop context.CancelFunc
	done chan struct{} // closed when the watcher has ended

	streams  atomic.Int64 // change streams opened
	failures atomic.Int64 // requests failed with the backend's error
}

// Health is what a Backend can say about its connection.
type Health struct {
	// Reconnects counts the times the client opened its connection
	// again ([WithReconnect]).
	Reconnects int64
	// Streams counts the change streams the watcher opened: one at Dial
	// when the remote announces list changes, one more after each
	// reconnection.
	Streams int64
	// Failures counts the requests that failed because the backend did
	// (its connection failed or ended), not because the remote refused
	// them.
	Failures int64
}

// Health reports the backend's reconnections and change streams.
func (b *Backend) Health() Health {
	return Health{Reconnects: b.client.Reconnects(), Streams: b.streams.Load(), Failures: b.failures.Load()}
}

// Dial connects to the remote server t reaches, lists its catalog and
// returns the Backend serving it. The remote's tools, prompts, resources
// and templates are checked as [dispatch.New] checks its own; one that
// fails the checks is left out and logged. When the remote announces
// list changes, a watcher (one goroutine, ended by Close) follows them
// and refreshes the catalog, which publishes the change to the Runtime's
// listeners. Remote lists and reads are cached by the client within
// their ttlMs.
//
// Input is relayed as multi round-trip requests: the downstream
// client's capabilities are declared to the remote, and the remote's
// input requests go back to the downstream client (as an input_required
// result, or as real requests to an initialize-era client), its answers
// to the remote. An initialize-era remote asks for input with requests
// of its own instead, which the proxy cannot relay: it declares no
// capabilities to such a remote and refuses them. The remote's
// extensions (tasks) are not relayed, nor are its resource updates: the
// watcher follows list changes only, so a client subscribed to a proxied
// resource hears of its changes only by reading it again.
func Dial(ctx context.Context, t client.Transport, opts ...Option) (*Backend, error) {
	cfg := config{logger: slog.Default()}
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("proxy: nil option")
		}
		if err := o.applyProxy(&cfg); err != nil {
			return nil, fmt.Errorf("proxy: %T: %w", o, err)
		}
	}
	cfg.limits = cfg.limits.withDefaults()
	clientOpts := append([]client.Option{client.WithLogger(cfg.logger)}, cfg.clientOpt...)
	c, err := client.New(ctx, t, clientOpts...)
	if err != nil {
		return nil, fmt.Errorf("proxy: connecting: %w", err)
	}
	srv := c.Server()
	b := &Backend{name: cfg.name, cfg: cfg, client: c, logger: cfg.logger, done: make(chan struct{})}
	if b.name == "" {
		b.name = srv.Implementation.Name
	}
	b.hub = dispatch.NewHub(dispatch.HubOptions{})
	b.reg = dispatch.NewRegistry(b.hub)
	// The change stream opens before the first listing, so no change
	// falls between the two.
	wctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	sub := b.subscribe(ctx, wctx)
	fail := func(err error) (*Backend, error) {
		cancel()
		if sub != nil {
			sub.Close()
		}
		_ = c.Close()
		return nil, err
	}
	if err := b.Refresh(ctx); err != nil {
		return fail(err)
	}
	info := srv.Implementation
	if cfg.info != nil {
		info = *cfg.info
	}
	if info.Name == "" || info.Version == "" {
		info = mcp.Implementation{Name: b.name + "-proxy", Version: "0.0.0"}
	}
	rtOpts := []dispatch.Option{dispatch.WithRegistry(b.reg), dispatch.WithSubscriptions(b.hub), dispatch.WithLogger(cfg.logger)}
	if srv.Instructions != "" {
		rtOpts = append(rtOpts, dispatch.WithInstructions(srv.Instructions))
	}
	if srv.Capabilities.Logging != nil {
		rtOpts = append(rtOpts, dispatch.WithClientLogging())
	}
	if b.rt, err = dispatch.New(info, append(rtOpts, cfg.rtOpt...)...); err != nil {
		return fail(fmt.Errorf("proxy: %w", err))
	}
	if sub == nil {
		close(b.done)
		return b, nil
	}
	go b.watch(wctx, sub)
	return b, nil
}

// Runtime returns the Runtime that serves the remote's components.
func (b *Backend) Runtime() *dispatch.Runtime { return b.rt }

// Name returns the backend's name.
func (b *Backend) Name() string { return b.name }

// Server returns what the client learned of the remote when it
// connected.
func (b *Backend) Server() client.ServerInfo { return b.client.Server() }

// Close stops the watcher, ends the Runtime's listen streams and closes
// the connection to the remote (ending the calls still in flight, which
// fail with the backend's error).
func (b *Backend) Close() error {
	b.stop()
	<-b.done
	b.hub.Complete()
	return b.client.Close()
}

// subscribe opens the stream of the remote's list changes, for as long
// as life lasts; nil when the remote announces none or the stream
// cannot be opened (logged).
func (b *Backend) subscribe(ctx, life context.Context) *client.Subscription {
	caps := b.client.Server().Capabilities
	f := mcp.SubscriptionFilter{
		ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged {
		return nil
	}
	// The stream lives past Dial's ctx; Dial's ctx bounds the opening.
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
		b.logger.Warn("proxy: the backend's list changes cannot be followed", "backend", b.name, "error", err)
		return nil
	}
	b.streams.Add(1)
	return sub
}

// watch follows the remote's list changes until ctx ends or the remote's
// stream does; with reconnection on, it subscribes again once the
// connection is back.
func (b *Backend) watch(ctx context.Context, sub *client.Subscription) {
	defer close(b.done)
	for sub != nil {
		b.follow(ctx, sub)
		sub.Close()
		if ctx.Err() != nil || b.cfg.reconnect == nil {
			return
		}
		sub = b.resubscribe(ctx)
	}
}

// follow refreshes the catalog after each change until the stream ends.
func (b *Backend) follow(ctx context.Context, sub *client.Subscription) {
	for {
		if _, err := sub.Next(ctx); err != nil {
			if ctx.Err() == nil {
				b.logger.Warn("proxy: the backend's change stream ended", "backend", b.name, "error", err)
			}
			return
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
			if sub := b.subscribe(ctx, ctx); sub != nil {
				b.logger.Info("proxy: following the backend's list changes again", "backend", b.name)
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
