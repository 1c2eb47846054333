package main

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/dispatch"
)

// newRuntime is the server under test: "slow" runs until its deadline or
// its cancellation, "fast" answers at once.
func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(dispatch.Implementation{Name: "tree-in-tests", Version: "1.0.0"},
		dispatch.WithTool(dispatch.Tool{Name: "slow", Description: "Works for up to a minute."},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
				select {
				case <-time.After(time.Minute):
					return dispatch.TextResult("done"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
		dispatch.WithTool(dispatch.Tool{Name: "fast", Description: "Answers at once."},
			func(context.Context, *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
				return dispatch.TextResult("fast"), nil
			}),
	)
}
