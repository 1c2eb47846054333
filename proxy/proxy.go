// Backend: one remote server as a Runtime, its life from Dial to Close.

package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// Backend is a remote MCP server served as a [dispatch.Runtime]. Its
// methods are safe for concurrent use.
type Backend struct {
	name   string
	cfg    config
	client *client.Client
	hub    *hub.Hub
	reg    *hub.Registry
	rt     *dispatch.Runtime
	logger *slog.Logger

	refreshMu sync.Mutex // one refresh at a time
	have      catalogState

	stop context.CancelFunc
	done chan struct{} // closed when the watcher has ended

	streams  atomic.Int64 // change streams opened
	failures atomic.Int64 // requests failed with the backend's error

	// The calls to an initialize-era remote, held while the downstream
	// client answers its input requests (relay.go).
	heldMu       sync.Mutex
	held         map[string]*heldCall
	waitingCalls int             // held calls waiting for the downstream client
	closed       bool            // no call is held any more
	followed     int             // tasks whose status is relayed (tasks.go)
	life         context.Context // ends with Close
	heldWG       sync.WaitGroup

	// The downstream clients' resource subscriptions, followed upstream.
	resubMu      sync.Mutex
	resubPending bool               // the subscribed URIs changed since the stream opened
	cancelFollow context.CancelFunc // ends the wait for the stream's next event
	resubCh      chan struct{}      // a change, for a watcher with no stream
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
	// HeldCalls counts the calls to an initialize-era remote held now
	// while the downstream client answers their input.
	HeldCalls int
	// FollowedTasks counts the tasks whose status is relayed now.
	FollowedTasks int
}

// Health reports the backend's reconnections, change streams, failures,
// held calls and followed tasks.
func (b *Backend) Health() Health {
	b.heldMu.Lock()
	held, followed := b.waitingCalls, b.followed
	b.heldMu.Unlock()
	return Health{Reconnects: b.client.Reconnects(), Streams: b.streams.Load(), Failures: b.failures.Load(),
		HeldCalls: held, FollowedTasks: followed}
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
// Input is relayed whatever revision either side speaks. To a
// 2026-07-28 remote the downstream client's capabilities are declared
// on each request, and the remote's input requests go back to the
// downstream client (as an input_required result, or as real requests to
// an initialize-era client) with the remote's requestState sealed, the
// answers to the remote: the proxy keeps nothing between rounds. An
// initialize-era remote asks with server-to-client requests while its
// handler waits: the proxy declares every input capability to it, holds
// the call open upstream, and relays each request to the downstream
// client the same two ways, the retry's answer back to the remote. Such
// a call is held by this Backend (a retry reaching another proxy process
// finds nothing) for at most Limits.InputWait between rounds, and at
// most Limits.MaxHeldCalls wait at once. Over stdio, which relates no
// server-to-client request to a call, a request is relayed only while
// exactly one call of the backend is in flight; otherwise it is refused.
// A request the downstream client did not declare the capability for is
// answered -32601 to the remote.
//
// A remote that offers the tasks extension (2026-07-28) is reached
// through the proxy as directly: see tasks.go's comment; the proxy
// forwards, and the remote's task store stays authoritative.
//
// Resource subscriptions are followed upstream: when the set of URIs the
// proxy's clients subscribe to changes (hub.Options.OnSubscriptionsChanged),
// the watcher opens its stream again naming them (at most 1,000), and
// the remote's updates are published to those clients.
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
	b := &Backend{name: cfg.name, cfg: cfg, logger: cfg.logger, done: make(chan struct{}), held: map[string]*heldCall{}}
	clientOpts := append(append([]client.Option{client.WithLogger(cfg.logger)}, b.relayOptions()...), cfg.clientOpt...)
	c, err := client.New(ctx, t, clientOpts...)
	if err != nil {
		return nil, fmt.Errorf("proxy: connecting: %w", err)
	}
	b.client = c
	srv := c.Server()
	if b.name == "" {
		b.name = srv.Implementation.Name
	}
	b.hub = hub.New(hub.Options{OnSubscriptionsChanged: b.subscriptionsChanged})
	b.resubCh = make(chan struct{}, 1)
	b.reg = hub.NewRegistry(b.hub)
	// The change stream opens before the first listing, so no change
	// falls between the two.
	wctx, cancel := context.WithCancel(context.Background())
	b.stop, b.life = cancel, wctx
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
	rtOpts := []dispatch.Option{dispatch.WithCatalog(b.reg), dispatch.WithSubscriptions(b.hub), dispatch.WithLogger(cfg.logger)}
	if srv.Instructions != "" {
		rtOpts = append(rtOpts, dispatch.WithInstructions(srv.Instructions))
	}
	if srv.Capabilities.Logging != nil {
		rtOpts = append(rtOpts, dispatch.WithClientLogging())
	}
	if ext := b.tasksExtension(); ext != nil {
		rtOpts = append(rtOpts, ext)
	}
	if b.rt, err = dispatch.New(info, append(rtOpts, cfg.rtOpt...)...); err != nil {
		return fail(fmt.Errorf("proxy: %w", err))
	}
	if sub == nil && !b.canSubscribe() {
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
	b.closeHeld()
	b.hub.Complete()
	return b.client.Close()
}
