package main

import (
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
)

// newRuntime builds the fixture: every tool, resource, template and prompt
// the conformance suite names, plus echo and sleep for load tests.
func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	opts := []dispatch.Option{
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("The conformance fixture of snodo-go: every tool, resource and prompt the MCP conformance suite exercises."),
		dispatch.WithLogging(),
	}
	for _, group := range [][]dispatch.Option{contentTools(), protocolTools(), mrtrTools(), resources(), prompts()} {
		opts = append(opts, group...)
	}
	return dispatch.New(dispatch.Implementation{Name: "snodo-everything", Title: "snodo conformance fixture", Version: "0.1.0"}, opts...)
}
