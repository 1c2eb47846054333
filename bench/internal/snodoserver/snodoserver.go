// Package snodoserver defines the snodo-go benchmark server's Runtime, so
// the server command and the harness's smoke test serve the same thing.
package snodoserver

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// NewRuntime returns the Runtime with the echo and sleep tools and their
// input schemas (so every call's arguments are validated). Both are typed
// tools, as a user would write them: the arguments arrive decoded into
// their struct, and each tool builds its own text result.
func NewRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	return newRuntime(logger, json.RawMessage(benchtool.EchoSchema), json.RawMessage(benchtool.SleepSchema))
}

// NewRuntimeWithoutSchemas declares input schemas that admit any object,
// so nothing is validated: it isolates the cost of validation from the
// rest of the path.
func NewRuntimeWithoutSchemas(logger *slog.Logger) (*dispatch.Runtime, error) {
	return newRuntime(logger, anyObject, anyObject)
}

// anyObject is the input schema that admits any arguments object.
var anyObject = json.RawMessage(`{"type":"object"}`)

func newRuntime(logger *slog.Logger, echoSchema, sleepSchema json.RawMessage, extra ...dispatch.Option) (*dispatch.Runtime, error) {
	opts := append([]dispatch.Option{
		dispatch.WithLogger(logger),
		// Serves subscriptions/listen (the idle-stream scenario); nothing
		// is published.
		dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTypedTool(mcp.Tool{Name: benchtool.EchoTool, InputSchema: echoSchema}, echo),
		dispatch.WithTypedTool(mcp.Tool{Name: benchtool.SleepTool, InputSchema: sleepSchema}, sleep),
	}, extra...)
	return dispatch.New(mcp.Implementation{Name: "bench-snodo", Version: "1.0.0"}, opts...)
}

func echo(_ context.Context, a benchtool.EchoArgs) (*mcp.CallToolResult, error) {
	return mcp.TextResult(a.Text), nil
}

func sleep(ctx context.Context, a benchtool.SleepArgs) (*mcp.CallToolResult, error) {
	if err := benchtool.Sleep(ctx, a.MS); err != nil {
		return nil, err
	}
	return mcp.TextResult(benchtool.SleptText(a.MS)), nil
}
