// Forwarding: each call, read, get and completion goes to the remote
// with the request's progress, log messages, cancellation and input.

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// ErrBackend is what a request that the backend could not serve (its
// connection failed or ended, or it answered what the client cannot
// read) fails with, wrapped in a -32603 error whose message names the
// backend and the cause. Protocol errors of the remote are passed on as
// they are.
var ErrBackend = errors.New("proxy: backend unavailable")

// BackendError is the data of the -32603 error a request gets when its
// backend failed.
type BackendError struct {
	// Backend is the backend's name.
	Backend string `json:"backend"`
}

// callOptions carries the request's progress token, log level, client
// capabilities and input answers to the remote.
func callOptions(ctx context.Context, info *dispatch.RequestInfo, in *dispatch.Input) []client.CallOption {
	var opts []client.CallOption
	if info.ProgressToken.IsValid() {
		opts = append(opts, client.WithProgress(func(p mcp.Progress) { _ = dispatch.ReportProgress(ctx, p) }))
	}
	if info.LogLevel != "" {
		logger := dispatch.ClientLogger(ctx)
		opts = append(opts, client.WithCallLogging(info.LogLevel, func(m mcp.LogMessage) { forwardLog(ctx, logger, m) }))
	}
	// The remote may ask for what the downstream client can give; the
	// proxy answers nothing itself, so the requests come back to relay.
	// Of the extensions, only tasks is declared upstream (tasks.go).
	caps := info.ClientCapabilities
	tasks, declared := caps.Extensions[mcp.ExtensionTasks]
	caps.Extensions, caps.Experimental = nil, nil
	if declared {
		if tasks == nil {
			tasks = map[string]any{}
		}
		caps.Extensions = map[string]map[string]any{mcp.ExtensionTasks: tasks}
	}
	opts = append(opts, client.WithCapabilities(caps))
	if in != nil {
		responses := map[string]any{}
		for _, k := range in.Keys() {
			raw, _ := in.Raw(k)
			responses[k] = json.RawMessage(raw)
		}
		state, _ := in.State()
		opts = append(opts, client.WithInputResponses(responses, string(state)))
	}
	return opts
}

// forwardLog passes a remote log message on to the request's client.
func forwardLog(ctx context.Context, logger *slog.Logger, m mcp.LogMessage) {
	if m.Logger != "" {
		logger = logger.With(dispatch.LoggerNameKey, m.Logger)
	}
	msg, isText := m.Data.(string)
	if isText {
		logger.Log(ctx, slogLevel(m.Level), msg)
		return
	}
	logger.Log(ctx, slogLevel(m.Level), "", "data", m.Data)
}

func slogLevel(level string) slog.Level {
	switch level {
	case "debug":
		return slog.LevelDebug
	case "notice":
		return dispatch.LevelNotice
	case "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	case "critical":
		return dispatch.LevelCritical
	case "alert":
		return dispatch.LevelAlert
	case "emergency":
		return dispatch.LevelEmergency
	}
	return slog.LevelInfo
}

// failure maps what the client returned to what the request gets: input
// the remote asks for is relayed to the downstream client, the remote's
// protocol errors pass through, a cancelled request stays cancelled, and
// anything else is the backend's failure.
func (b *Backend) failure(what string, err error) error {
	var ir *client.InputRequiredError
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &ir):
		out := &dispatch.InputRequired{Requests: ir.Requests}
		if ir.RequestState != "" {
			out.State = []byte(ir.RequestState)
		}
		return out
	case errors.As(err, &je):
		return je
	case errors.Is(err, context.Canceled):
		return err
	}
	b.failures.Add(1)
	return (&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Backend " + b.name + " unavailable: " + what + ": " + err.Error()}).
		WithData(BackendError{Backend: b.name})
}

func (b *Backend) callTool(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := b.forward(ctx, "tools/call", req.Info, req.Input, func(ctx context.Context, opts []client.CallOption) (any, error) {
		return b.client.CallTool(ctx, req.Name, req.Arguments, opts...)
	})
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CallToolResult), nil
}

func (b *Backend) readResource(ctx context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	res, err := b.forward(ctx, "resources/read", req.Info, req.Input, func(ctx context.Context, opts []client.CallOption) (any, error) {
		return b.client.ReadResource(ctx, req.URI, opts...)
	})
	if err != nil {
		return nil, err
	}
	return res.(*mcp.ReadResourceResult), nil
}

func (b *Backend) getPrompt(ctx context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := b.forward(ctx, "prompts/get", req.Info, req.Input, func(ctx context.Context, opts []client.CallOption) (any, error) {
		return b.client.GetPrompt(ctx, req.Name, req.Arguments, opts...)
	})
	if err != nil {
		return nil, err
	}
	return res.(*mcp.GetPromptResult), nil
}

func (b *Backend) complete(ctx context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
	ref := mcp.Reference{Type: req.Ref}
	if req.Ref == mcp.RefPrompt {
		ref.Name = req.Name
	} else {
		ref.URI = req.Name
	}
	res, err := b.client.Complete(ctx, ref, req.Argument, req.Value, req.Context, callOptions(ctx, req.Info, nil)...)
	if err != nil {
		return nil, b.failure("completion/complete", err)
	}
	return &res.Completion, nil
}
