package main

import (
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
)

// newRuntime builds the fixture: every tool, resource, template and prompt
// the conformance suite names, plus echo and sleep for load tests.
func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) { return newRuntimeWith(logger, true) }

// newRuntimeWith builds the fixture, with or without the subscription
// hub. With it, change events reach subscriptions/listen streams and the
// sessions of initialize-era clients (list_changed, resources/subscribe),
// and the registry lets the trigger tools change the lists for real.
func newRuntimeWith(logger *slog.Logger, subscriptions bool) (*dispatch.Runtime, error) {
	var hub *dispatch.Hub
	if subscriptions {
		hub = dispatch.NewHub(dispatch.HubOptions{})
	}
	reg := dispatch.NewRegistry(hub)
	opts := []dispatch.Option{
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("The conformance fixture of snodo-go: every tool, resource and prompt the MCP conformance suite exercises."),
		dispatch.WithLogging(),
		dispatch.WithRegistry(reg),
	}
	if hub != nil {
		opts = append(opts, dispatch.WithSubscriptions(hub))
	}
	for _, group := range [][]dispatch.Option{contentTools(), protocolTools(reg), mrtrTools(), resources(), prompts()} {
		opts = append(opts, group...)
	}
	return dispatch.New(dispatch.Implementation{Name: "snodo-everything", Title: "snodo conformance fixture", Version: "0.1.0"}, opts...)
}
