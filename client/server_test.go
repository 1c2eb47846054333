package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// newRuntime is the server every transport test talks to.
func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(
		mcp.Implementation{Name: "client-test", Version: "1.2.3"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithInstructions("Test server."),
		dispatch.WithTool(mcp.Tool{
			Name:        "echo",
			Description: "Returns its text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(func(s string) string { return s })),
		dispatch.WithTool(mcp.Tool{
			Name:        "regional",
			Description: "Returns its region, which is mirrored in a header.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"}}}`),
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Region string `json:"region"`
				Count  int    `json:"count"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s/%d", a.Region, a.Count)), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name:        "progress",
			Description: "Reports n progress steps, then returns.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ N int }
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			for i := 1; i <= a.N; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult(fmt.Sprintf("did %d steps", a.N)), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name:        "block",
			Description: "Waits until cancelled; reports the cancellation to the test through a side channel.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case blockStarted <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				notifyCancelled(req)
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return mcp.TextResult("not cancelled"), nil
			}
		}),
		dispatch.WithTool(mcp.Tool{
			Name:        "fail",
			Description: "Fails as a tool.",
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.ErrorResult("it went wrong"), nil
		}),
		dispatch.WithLimits(dispatch.Limits{PageSize: 3}),
		dispatch.WithLogging(),
		dispatch.WithCacheHint(dispatch.CacheTools, time.Minute, mcp.CachePublic),
		dispatch.WithCacheHint(dispatch.CacheResources, time.Minute, mcp.CachePrivate),
		dispatch.WithTool(mcp.Tool{
			Name:        "ask",
			Description: "Asks the user for a name (multi round-trip), then greets them.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Input != nil {
				if r, ok := req.Input.Elicitation("who"); ok && r.Action == "accept" {
					state, _ := req.Input.State()
					return mcp.TextResult(fmt.Sprintf("hello %v (%s)", r.Content["name"], state)), nil
				}
			}
			return nil, &dispatch.InputRequired{
				Requests: map[string]mcp.InputRequest{"who": mcp.ElicitForm("Your name?",
					json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`))},
				State: []byte("round-1"),
			}
		}),
		dispatch.WithTool(mcp.Tool{
			Name:        "log",
			Description: "Logs at info and debug.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			dispatch.Logger(ctx).Debug("quiet")
			dispatch.Logger(ctx).Info("loud", "n", 1)
			return mcp.TextResult("logged"), nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "file:///notes/a.txt", Name: "a", MIMEType: "text/plain"},
			func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents("file:///notes/a.txt", "text/plain", "note a")}}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///notes/{name}.md", Name: "note"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/markdown", "# "+req.Vars.Get("name"))}}, nil
			}, dispatch.WithCompletion("name", suggest("alpha", "beta", "gamma"))),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet", Description: "Greets someone.",
			Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "greeting", Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Text("Say hello to " + req.Arguments["who"])}}}, nil
			}, dispatch.WithCompletion("who", suggest("Ada", "Alan", "Grace"))),
		dispatch.WithTool(mcp.Tool{
			Name:        "upper",
			Description: "Upper-cases its text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(strings.ToUpper)),
	)
}

func textTool(f func(string) string) dispatch.ToolHandler {
	return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return nil, err
		}
		return mcp.TextResult(f(a.Text)), nil
	}
}

// cancelled receives the request id of every "block" call whose context
// ended, for in-process servers.
var cancelled = make(chan string, 16)

// blockStarted receives a value when a "block" call starts, for
// in-process servers.
var blockStarted = make(chan struct{}, 1)

func notifyCancelled(req *dispatch.CallToolRequest) {
	select {
	case cancelled <- req.Info.ID.String():
	default:
	}
}

// drainSignals empties the side channels before a test uses them.
func drainSignals() {
	for {
		select {
		case <-cancelled:
		case <-blockStarted:
		default:
			return
		}
	}
}

// suggest suggests the values that start with what was typed.
func suggest(values ...string) dispatch.CompletionHandler {
	return func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, req.Value) {
				out = append(out, v)
			}
		}
		return &mcp.Completion{Values: out}, nil
	}
}
