package main

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// newRuntime is the server under test: "slow" runs until its deadline or
// its cancellation, "fast" answers at once.
func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "tree-in-tests", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "slow", Description: "Works for up to a minute."},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-time.After(time.Minute):
					return mcp.TextResult("done"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
		dispatch.WithTool(mcp.Tool{Name: "fast", Description: "Answers at once."},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("fast"), nil
			}),
	)
}
