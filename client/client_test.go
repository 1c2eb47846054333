package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// connect is testkit.Connect without its frame checks: these tests talk
// to hand-written servers whose answers leave out members the schema
// requires (cacheScope, ttlMs) or carry what the client must refuse, to
// see what the client does with them.
func connect(t *testing.T, tr client.Transport, opts ...client.Option) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.New(ctx, tr, opts...)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	return c
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if _, ok := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || !ok {
		t.Fatalf("want one text block, got %+v", res.Content)
	}
	return mcp.TextOf(res.Content)
}

// TestSameCallsEveryTransport makes the same calls on every transport to
// our server and expects the same answers.
func TestSameCallsEveryTransport(t *testing.T) {
	for _, tr := range ourTransports() {
		t.Run(tr.name, func(t *testing.T) {
			var log frameLog
			var logs []mcp.LogMessage
			c := testkit.Connect(t, tr.make(t), client.WithTrace(log.trace), elicitAda(mcp.ElicitModeForm, mcp.ElicitModeURL),
				client.WithLogMessages("info", func(m mcp.LogMessage) { logs = append(logs, m) }))
			ctx := context.Background()
			if v := c.Server().ProtocolVersion; v != mcp.Version20260728 {
				t.Fatalf("negotiated %q", v)
			}
			s := c.Server()
			if s.Implementation.Name != "client-test" || s.Implementation.Version != "1.2.3" || s.Instructions != "Test server." ||
				s.Capabilities.Tools == nil || s.Capabilities.Resources == nil || s.Capabilities.Prompts == nil || s.Capabilities.Completions == nil {
				t.Fatalf("server info %+v", s)
			}
			if !slices.Contains(s.SupportedVersions, mcp.Version20260728) {
				t.Fatalf("supported versions: %v", s.SupportedVersions)
			}

			// Tools come in pages of three; the list is cached for a
			// minute (public), so the second listing sends nothing.
			want := []string{"ask", "block", "echo", "fail", "log", "progress", "regional", "upper"}
			for range 2 {
				tools, err := c.ListTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tl := range tools {
					names = append(names, tl.Name)
				}
				if !slices.Equal(names, want) {
					t.Fatalf("tools %v, want %v", names, want)
				}
			}
			if n := len(log.sentMatching(`"method":"tools/list"`)); n != 3 {
				t.Fatalf("tools/list sent %d times, want 3 (three pages, then the cache)", n)
			}

			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "h\u00e9llo \U0001F600"})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != "h\u00e9llo \U0001F600" || res.IsError {
				t.Fatalf("echo gave %q (isError %v)", got, res.IsError)
			}
			res, err = c.CallTool(ctx, "regional", map[string]any{"region": "Z\u00fcrich", "count": 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != "Z\u00fcrich/3" {
				t.Fatalf("regional gave %q", got)
			}
			res, err = c.CallTool(ctx, "fail", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || textOf(t, res) != "it went wrong" {
				t.Fatalf("fail gave %+v", res)
			}
			_, err = c.CallTool(ctx, "missing", nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("unknown tool: %v", err)
			}
			if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}) {
				t.Fatalf("errors.Is does not match the code: %v", err)
			}

			// Multi round-trip: the elicitation handler answers, the
			// sealed state comes back.
			res, err = c.CallTool(ctx, "ask", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != "hello Ada (round-1)" {
				t.Fatalf("ask gave %q", got)
			}

			// Log messages at the requested level and above.
			res, err = c.CallTool(ctx, "log", nil)
			if err != nil || textOf(t, res) != "logged" {
				t.Fatalf("log: %+v %v", res, err)
			}
			if len(logs) != 1 || logs[0].Level != "info" || !strings.Contains(fmt.Sprint(logs[0].Data), "loud") {
				t.Fatalf("log messages %+v", logs)
			}

			// Resources, templates and reads (cached privately).
			resources, err := c.ListResources(ctx)
			if err != nil || len(resources) != 1 || resources[0].URI != "file:///notes/a.txt" {
				t.Fatalf("resources %+v %v", resources, err)
			}
			templates, err := c.ListResourceTemplates(ctx)
			if err != nil || len(templates) != 1 || templates[0].URITemplate != "file:///notes/{name}.md" {
				t.Fatalf("templates %+v %v", templates, err)
			}
			for range 2 {
				rr, err := c.ReadResource(ctx, "file:///notes/beta.md")
				if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "# beta" || rr.Contents[0].MIMEType != "text/markdown" {
					t.Fatalf("read %+v %v", rr, err)
				}
			}
			if n := len(log.sentMatching(`"method":"resources/read"`)); n != 1 {
				t.Fatalf("resources/read sent %d times, want 1", n)
			}
			_, err = c.ReadResource(ctx, "file:///elsewhere")
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("unknown resource: %v", err)
			}

			// Prompts and completions.
			prompts, err := c.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" || !prompts[0].Arguments[0].Required {
				t.Fatalf("prompts %+v %v", prompts, err)
			}
			gp, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Grace"})
			if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Role != "user" || mcp.TextOf([]mcp.Content{gp.Messages[0].Content}) != "Say hello to Grace" {
				t.Fatalf("prompt %+v %v", gp, err)
			}
			if _, err := c.GetPrompt(ctx, "greet", nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("missing argument: %v", err)
			}
			cr, err := c.Complete(ctx, mcp.Reference{Type: mcp.RefPrompt, Name: "greet"}, "who", "A", nil)
			if err != nil || !slices.Equal(cr.Completion.Values, []string{"Ada", "Alan"}) {
				t.Fatalf("prompt completion %+v %v", cr, err)
			}
			cr, err = c.Complete(ctx, mcp.Reference{Type: mcp.RefResource, URI: "file:///notes/{name}.md"}, "name", "g", nil)
			if err != nil || !slices.Equal(cr.Completion.Values, []string{"gamma"}) {
				t.Fatalf("template completion %+v %v", cr, err)
			}
		})
	}
}

func TestProgressEveryTransport(t *testing.T) {
	for _, tr := range ourTransports() {
		t.Run(tr.name, func(t *testing.T) {
			c := testkit.Connect(t, tr.make(t))
			var got []mcp.Progress
			res, err := c.CallTool(context.Background(), "progress", map[string]any{"n": 3},
				client.WithProgress(func(p mcp.Progress) { got = append(got, p) }))
			if err != nil {
				t.Fatal(err)
			}
			if textOf(t, res) != "did 3 steps" {
				t.Fatalf("result %+v", res)
			}
			if len(got) != 3 {
				t.Fatalf("progress %+v", got)
			}
			for i, p := range got {
				if p.Progress != float64(i+1) || p.Total != 3 || p.Message != "step "+string(rune('1'+i)) {
					t.Fatalf("progress %d: %+v", i, p)
				}
			}
			// Without a callback the request carries no token and no
			// progress is sent.
			res, err = c.CallTool(context.Background(), "progress", map[string]any{"n": 2})
			if err != nil || textOf(t, res) != "did 2 steps" {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}

// frameLog records the frames a client sends and receives.
type frameLog struct {
	mu     sync.Mutex
	sent   []string
	recv   []string
	onSent func(string)
}

func (l *frameLog) trace(sent bool, frame []byte) {
	l.mu.Lock()
	if sent {
		l.sent = append(l.sent, string(frame))
	} else {
		l.recv = append(l.recv, string(frame))
	}
	f := l.onSent
	l.mu.Unlock()
	if sent && f != nil {
		f(string(frame))
	}
}

func (l *frameLog) sentMatching(sub string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, f := range l.sent {
		if strings.Contains(f, sub) {
			out = append(out, f)
		}
	}
	return out
}

// TestTimeoutCancelsEveryTransport: a request that outlives its timeout
// fails with context.DeadlineExceeded, and the server is told: a
// notifications/cancelled on stdio, a closed stream on HTTP, a cancelled
// context in process.
func TestTimeoutCancelsEveryTransport(t *testing.T) {
	for _, tr := range ourTransports() {
		t.Run(tr.name, func(t *testing.T) {
			drainSignals()
			var log frameLog
			c := testkit.Connect(t, tr.make(t), client.WithLimits(client.Limits{RequestTimeout: 300 * time.Millisecond}), client.WithTrace(log.trace))
			_, err := c.CallTool(context.Background(), "block", nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("want a deadline error, got %v", err)
			}
			calls := log.sentMatching(`"name":"block"`)
			if len(calls) != 1 {
				t.Fatalf("block calls sent: %v", calls)
			}
			msg, err := jsonrpc.Decode([]byte(calls[0]))
			if err != nil {
				t.Fatal(err)
			}
			cancels := log.sentMatching(`"method":"notifications/cancelled"`)
			switch tr.name {
			case "stream", "command":
				if len(cancels) != 1 || !strings.Contains(cancels[0], `"requestId":`+msg.ID.String()) || !strings.Contains(cancels[0], "timed out") {
					t.Fatalf("cancellation frames %v for id %s", cancels, msg.ID)
				}
			default:
				if len(cancels) != 0 {
					t.Fatalf("%s sends no cancellation notification on 2026-07-28, sent %v", tr.name, cancels)
				}
			}
			if tr.inProcess {
				select {
				case id := <-cancelled:
					if id != msg.ID.String() {
						t.Fatalf("server cancelled %s, want %s", id, msg.ID)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the server's handler was never cancelled")
				}
			}
		})
	}
}

// TestContextCancels: cancelling the caller's context ends the call with
// context.Canceled.
func TestContextCancels(t *testing.T) {
	for _, tr := range ourTransports() {
		t.Run(tr.name, func(t *testing.T) {
			drainSignals()
			var log frameLog
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tr.inProcess {
				// Cancel once the handler runs.
				go func() {
					select {
					case <-blockStarted:
						cancel()
					case <-ctx.Done():
					}
				}()
			} else {
				// Cancel as soon as the call has gone out.
				log.onSent = func(f string) {
					if strings.Contains(f, `"name":"block"`) {
						cancel()
					}
				}
			}
			c := testkit.Connect(t, tr.make(t), client.WithTrace(log.trace))
			_, err := c.CallTool(ctx, "block", nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("want context.Canceled, got %v", err)
			}
			if tr.inProcess {
				select {
				case <-cancelled:
				case <-time.After(10 * time.Second):
					t.Fatal("the server's handler was never cancelled")
				}
			}
			// The connection still serves.
			res, err := c.CallTool(context.Background(), "upper", map[string]any{"text": "ok"})
			if err != nil || textOf(t, res) != "OK" {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}
