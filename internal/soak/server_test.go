package soak_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/mcp"
)

// The soak's server: a Runtime with a tool for every kind of call, a
// resource, a template, a prompt and subscriptions, whose instrumentation
// checks that every admitted call ends in exactly one outcome.

// holdFor bounds the hold tool: it waits for its cancellation, or this.
const holdFor = 2 * time.Second

func soakRuntime(hub *hub.Hub, sink instrumentation.Sink) (*dispatch.Runtime, error) {
	text := func(s string) (*mcp.CallToolResult, error) { return mcp.TextResult(s), nil }
	return dispatch.New(mcp.Implementation{Name: "soak", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithInstrumentation(sink),
		dispatch.WithSubscriptions(hub),
		dispatch.WithTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(req.Arguments, &a); err != nil {
					return nil, err
				}
				return text(a.Text)
			}),
		dispatch.WithTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":50}}}`)},
			func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct {
					MS int `json:"ms"`
				}
				_ = json.Unmarshal(req.Arguments, &a)
				t := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return text("slept")
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
		dispatch.WithTool(mcp.Tool{Name: "progress"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3}); err != nil {
					return nil, err
				}
			}
			return text("done")
		}),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			t := time.NewTimer(holdFor)
			defer t.Stop()
			select {
			case <-t.C:
				return text("held")
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
		dispatch.WithTool(mcp.Tool{Name: "boom"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}),
		dispatch.WithTool(mcp.Tool{Name: "refuse"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("refused")
		}),
		dispatch.WithResource(mcp.Resource{URI: "file:///soak/readme", Name: "readme", MIMEType: "text/plain"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "read me")}}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///soak/items/{id}", Name: "item", MIMEType: "text/plain"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "item")}}, nil
			}),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("hello " + req.Arguments["name"])}}}, nil
			}),
	)
}

// outcomes is the server's side of "every admitted request ends in
// exactly one outcome": each DispatchStart must be followed by exactly
// one DispatchStop or DispatchException, and each job the executor
// admitted must finish exactly once.
type outcomes struct {
	instrumentation.Nop
	mu                          sync.Mutex
	open                        map[*callToken]string // started, not ended: the method
	started, ended, unmatched   int64
	admitted, finished, refused int64
}

// callToken marks one call; it is not zero-sized, so that every token is
// a distinct pointer.
type callToken struct{ _ byte }

type tokenKey struct{}

func newOutcomes() *outcomes { return &outcomes{open: map[*callToken]string{}} }

func (o *outcomes) DispatchStart(ctx context.Context, e instrumentation.DispatchStart) context.Context {
	tok := &callToken{}
	o.mu.Lock()
	o.open[tok] = e.Method
	o.started++
	o.mu.Unlock()
	return context.WithValue(ctx, tokenKey{}, tok)
}

func (o *outcomes) end(ctx context.Context) {
	tok, _ := ctx.Value(tokenKey{}).(*callToken)
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.open[tok]; !ok {
		o.unmatched++ // an outcome with no start, or a second one
		return
	}
	delete(o.open, tok)
	o.ended++
}

func (o *outcomes) DispatchStop(ctx context.Context, _ instrumentation.DispatchStop) { o.end(ctx) }

func (o *outcomes) DispatchException(ctx context.Context, _ instrumentation.DispatchException) {
	o.end(ctx)
}

func (o *outcomes) Executor(e instrumentation.ExecutorEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch e.Kind {
	case instrumentation.ExecutorAdmitted:
		o.admitted++
	case instrumentation.ExecutorFinished:
		o.finished++
	case instrumentation.ExecutorRejected:
		o.refused++
	}
}

// check returns what is wrong once the server is idle.
func (o *outcomes) check() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	if o.unmatched > 0 {
		out = append(out, fmt.Sprintf("%d dispatch outcomes matched no start (a second outcome for a call)", o.unmatched))
	}
	if len(o.open) > 0 {
		methods := map[string]int{}
		for _, m := range o.open {
			methods[m]++
		}
		out = append(out, fmt.Sprintf("%d calls started and never ended: %v", len(o.open), methods))
	}
	if o.admitted != o.finished {
		out = append(out, fmt.Sprintf("the executor admitted %d jobs and finished %d", o.admitted, o.finished))
	}
	return out
}

func (o *outcomes) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return fmt.Sprintf("%d calls started, %d ended; executor: %d admitted, %d finished, %d refused", o.started, o.ended, o.admitted, o.finished, o.refused)
}
