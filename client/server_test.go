package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
)

// newRuntime is the server every transport test talks to.
func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(
		dispatch.Implementation{Name: "client-test", Version: "1.2.3"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithInstructions("Test server."),
		dispatch.WithTool(dispatch.Tool{
			Name:        "echo",
			Description: "Returns its text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(func(s string) string { return s })),
		dispatch.WithTool(dispatch.Tool{
			Name:        "regional",
			Description: "Returns its region, which is mirrored in a header.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"}}}`),
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			var a struct {
				Region string `json:"region"`
				Count  int    `json:"count"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return dispatch.TextResult(fmt.Sprintf("%s/%d", a.Region, a.Count)), nil
		}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "progress",
			Description: "Reports n progress steps, then returns.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			var a struct{ N int }
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			for i := 1; i <= a.N; i++ {
				if err := dispatch.ReportProgress(ctx, dispatch.Progress{Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return dispatch.TextResult(fmt.Sprintf("did %d steps", a.N)), nil
		}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "block",
			Description: "Waits until cancelled; reports the cancellation to the test through a side channel.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			select {
			case blockStarted <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				notifyCancelled(req)
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return dispatch.TextResult("not cancelled"), nil
			}
		}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "fail",
			Description: "Fails as a tool.",
		}, func(context.Context, *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			return dispatch.ErrorResult("it went wrong"), nil
		}),
		dispatch.WithLimits(dispatch.Limits{PageSize: 3}),
		dispatch.WithLogging(),
		dispatch.WithCacheHint(dispatch.CacheTools, time.Minute, dispatch.CachePublic),
		dispatch.WithCacheHint(dispatch.CacheResources, time.Minute, dispatch.CachePrivate),
		dispatch.WithTool(dispatch.Tool{
			Name:        "ask",
			Description: "Asks the user for a name (multi round-trip), then greets them.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			if req.Input != nil {
				if r, ok := req.Input.Elicitation("who"); ok && r.Action == "accept" {
					state, _ := req.Input.State()
					return dispatch.TextResult(fmt.Sprintf("hello %v (%s)", r.Content["name"], state)), nil
				}
			}
			return nil, &dispatch.InputRequired{
				Requests: map[string]dispatch.InputRequest{"who": dispatch.ElicitForm("Your name?",
					json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`))},
				State: []byte("round-1"),
			}
		}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "log",
			Description: "Logs at info and debug.",
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
			dispatch.Logger(ctx).Debug("quiet")
			dispatch.Logger(ctx).Info("loud", "n", 1)
			return dispatch.TextResult("logged"), nil
		}),
		dispatch.WithResource(dispatch.Resource{URI: "file:///notes/a.txt", Name: "a", MimeType: "text/plain"},
			func(context.Context, *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
				return &dispatch.ReadResourceResult{Contents: []*dispatch.ResourceContents{dispatch.TextContents("file:///notes/a.txt", "text/plain", "note a")}}, nil
			}),
		dispatch.WithResourceTemplate(dispatch.ResourceTemplate{URITemplate: "file:///notes/{name}.md", Name: "note",
			Complete: map[string]dispatch.CompletionHandler{"name": suggest("alpha", "beta", "gamma")}},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
				return &dispatch.ReadResourceResult{Contents: []*dispatch.ResourceContents{dispatch.TextContents(req.URI, "text/markdown", "# "+req.Vars.Get("name"))}}, nil
			}),
		dispatch.WithPrompt(dispatch.Prompt{Name: "greet", Description: "Greets someone.",
			Arguments: []dispatch.PromptArgument{{Name: "who", Required: true, Complete: suggest("Ada", "Alan", "Grace")}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
				return &dispatch.GetPromptResult{Description: "greeting", Messages: []dispatch.PromptMessage{
					{Role: dispatch.RoleUser, Content: dispatch.Text("Say hello to " + req.Arguments["who"])}}}, nil
			}),
		dispatch.WithTool(dispatch.Tool{
			Name:        "upper",
			Description: "Upper-cases its text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, textTool(strings.ToUpper)),
	)
}

func textTool(f func(string) string) dispatch.ToolHandler {
	return func(_ context.Context, req *dispatch.CallToolRequest) (*dispatch.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return nil, err
		}
		return dispatch.TextResult(f(a.Text)), nil
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
	return func(_ context.Context, req *dispatch.CompleteRequest) (*dispatch.Completion, error) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, req.Value) {
				out = append(out, v)
			}
		}
		return &dispatch.Completion{Values: out}, nil
	}
}
