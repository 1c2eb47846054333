package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// newRuntime builds the fixture: every tool, resource, template and prompt
// the conformance suite names, plus echo and sleep for load tests.
func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	rt, _, err := newRuntimeWith(logger, true)
	return rt, err
}

// newRuntimeWith builds the fixture, with or without the subscription
// hub. With it, change events reach subscriptions/listen streams and the
// sessions of initialize-era clients (list_changed, resources/subscribe),
// and the registry lets the trigger tools change the lists for real.
// extra options come last (the -page-size flag's limits).
func newRuntimeWith(logger *slog.Logger, subscriptions bool, extra ...dispatch.Option) (*dispatch.Runtime, *hub.Hub, error) {
	var changes *hub.Hub
	if subscriptions {
		changes = hub.New(hub.Options{})
	}
	reg := hub.NewRegistry(changes)
	opts := []dispatch.Option{
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("The conformance fixture of snodo-go: every tool, resource and prompt the MCP conformance suite exercises."),
		dispatch.WithClientLogging(),
		dispatch.WithCatalog(reg),
	}
	if changes != nil {
		opts = append(opts, dispatch.WithSubscriptions(changes))
	}
	for _, group := range [][]dispatch.Option{contentTools(), protocolTools(reg), mrtrTools(), clientTools(), taskToolOptions(), resources(), prompts(), extra} {
		opts = append(opts, group...)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "snodo-everything", Title: "snodo conformance fixture", Version: "0.1.0"}, opts...)
	return rt, changes, err
}

// watchedInterval is how often the served fixture reports a change of
// test://watched-resource, as the suite's reference servers do.
const watchedInterval = 3 * time.Second

// updateWatched publishes an update of test://watched-resource every
// interval until ctx ends, so subscribers (listen streams and
// initialize-era resources/subscribe) see the resource change.
func updateWatched(ctx context.Context, changes *hub.Hub, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_, _ = changes.ResourceUpdated(watchedURI)
		case <-ctx.Done():
			return
		}
	}
}
