package dispatch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// completeRequest is a 2026-07-28 completion/complete of arg on a prompt
// (ref/prompt) or a template (ref/resource).
func completeRequest(t testing.TB, id int, ref, name, arg string) *dispatch.Request {
	t.Helper()
	key := "name"
	if ref == mcp.RefResource {
		key = "uri"
	}
	raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"completion/complete","params":{"ref":{"type":%q,%q:%q},"argument":{"name":%q,"value":"a"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, ref, key, name, arg)
	return decodeRequest(t, []byte(raw))
}

func suggest(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{"ab"}}, nil
}

func promptHandler(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Text("hi")}}}, nil
}

// A prompt's rate limit bounds its completions, in buckets of their own:
// the completion past the burst is refused naming the completions, and
// the prompt's own call still has its token. A server default applies
// to a template's completions the same way.
func TestCompletionsFollowTheRateLimit(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	hourly := dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 1}
	read := func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, Text: "x"}}}, nil
	}
	rt := mustNew(t,
		dispatch.WithComponentPolicies(dispatch.WithRateLimit(hourly), dispatch.WithPolicyClock(clock.Now)),
		dispatch.WithPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "lang"}}}, promptHandler,
			dispatch.WithCompletion("lang", suggest), dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 2})),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t"}, read, dispatch.WithCompletion("x", suggest)))
	ctx := context.Background()
	for i := range 2 {
		if e := frameError(t, rt.Dispatch(ctx, completeRequest(t, i, mcp.RefPrompt, "p", "lang"))); e != nil {
			t.Fatalf("completion %d within the burst: %v", i, e)
		}
	}
	out := rt.Dispatch(ctx, completeRequest(t, 3, mcp.RefPrompt, "p", "lang"))
	e := frameError(t, out)
	if e == nil || e.Code != dispatch.CodeRateLimited || !strings.Contains(e.Message, "completions of prompt p") {
		t.Fatalf("the completion past the burst: %s", out.Frame)
	}
	if out.RetryAfter != time.Hour {
		t.Fatalf("RetryAfter %v", out.RetryAfter)
	}
	resultOf(t, call(t, rt, "prompts/get", map[string]any{"name": "p"}))

	if e := frameError(t, rt.Dispatch(ctx, completeRequest(t, 4, mcp.RefResource, "file:///t/{x}", "x"))); e != nil {
		t.Fatalf("the template's first completion: %v", e)
	}
	if e := frameError(t, rt.Dispatch(ctx, completeRequest(t, 5, mcp.RefResource, "file:///t/{x}", "x"))); e == nil || e.Code != dispatch.CodeRateLimited ||
		!strings.Contains(e.Message, "completions of resource template file:///t/{x}") {
		t.Fatalf("the template's second completion under the server default: %v", e)
	}
	resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "file:///t/1"}))
}

// A completion runs under its component's timeout, and under a
// concurrency limit of the component's bounds.
func TestCompletionsFollowTimeoutAndConcurrency(t *testing.T) {
	started, release := make(chan struct{}, 10), make(chan struct{})
	slow := func(ctx context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
		started <- struct{}{}
		select {
		case <-release:
			return &mcp.Completion{Values: []string{"done"}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rt := mustNew(t,
		dispatch.WithPrompt(mcp.Prompt{Name: "timed", Arguments: []mcp.PromptArgument{{Name: "a"}}}, promptHandler,
			dispatch.WithCompletion("a", slow), dispatch.WithCallTimeout(5*time.Millisecond)),
		dispatch.WithPrompt(mcp.Prompt{Name: "narrow", Arguments: []mcp.PromptArgument{{Name: "a"}}}, promptHandler,
			dispatch.WithCompletion("a", slow), dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: -1})))
	ctx := context.Background()
	e := frameError(t, rt.Dispatch(ctx, completeRequest(t, 1, mcp.RefPrompt, "timed", "a")))
	if e == nil || e.Code != dispatch.CodeCallTimedOut || !strings.Contains(e.Message, "completions of prompt timed") {
		t.Fatalf("a completion past its timeout: %v", e)
	}
	recvStart(t, started)

	first := make(chan dispatch.Outcome, 1)
	go func() { first <- rt.Dispatch(ctx, completeRequest(t, 2, mcp.RefPrompt, "narrow", "a")) }()
	recvStart(t, started)
	if e := frameError(t, rt.Dispatch(ctx, completeRequest(t, 3, mcp.RefPrompt, "narrow", "a"))); e == nil || e.Code != dispatch.CodeBusy {
		t.Fatalf("a second completion while the first holds the place: %v", e)
	}
	// The prompt's own call has a place of its own.
	resultOf(t, call(t, rt, "prompts/get", map[string]any{"name": "narrow"}))
	close(release)
	if e := frameError(t, <-first); e != nil {
		t.Fatalf("the first completion: %v", e)
	}
}

// A mounted prompt's completions run under the part's policies.
func TestMountedCompletionsFollowThePartsPolicies(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	part := mustNew(t, dispatch.WithPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "lang"}}}, promptHandler,
		dispatch.WithCompletion("lang", suggest),
		dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 1}), dispatch.WithPolicyClock(clock.Now)))
	outer := mustNew(t, dispatch.WithMount("docs", part))
	ctx := context.Background()
	name := "docs_p"
	if e := frameError(t, outer.Dispatch(ctx, completeRequest(t, 1, mcp.RefPrompt, name, "lang"))); e != nil {
		t.Fatalf("the first completion: %v", e)
	}
	if e := frameError(t, outer.Dispatch(ctx, completeRequest(t, 2, mcp.RefPrompt, name, "lang"))); e == nil || e.Code != dispatch.CodeRateLimited {
		t.Fatalf("the second completion under the part's rate limit: %v", e)
	}
}
