package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

var quiet = slog.New(slog.DiscardHandler)

// remote is the server behind the proxy: a tool that reports progress
// and logs, one that asks for input, a prompt and a template with
// completions, a resource, and a registry to change at run time.
type remote struct {
	rt  *dispatch.Runtime
	reg *hub.Registry
	hub *hub.Hub
}

func newRemote(t *testing.T) *remote {
	t.Helper()
	hb := hub.New(hub.Options{})
	r := &remote{reg: hub.NewRegistry(hb), hub: hb}
	work := func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 2; i++ {
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2}); err != nil {
				return nil, err
			}
		}
		dispatch.ClientLogger(ctx).Info("working")
		return mcp.TextResult("worked on " + string(req.Arguments)), nil
	}
	ask := func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if ans, ok := req.Input.Elicitation("name"); ok {
			state, _ := req.Input.State()
			return mcp.TextResult("hello " + ans.Content["name"].(string) + " " + string(state)), nil
		}
		return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"name": mcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
		}, State: []byte("round1")}
	}
	prompt := func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("review " + req.Arguments["lang"])}}}, nil
	}
	complete := func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
		return &mcp.Completion{Values: []string{req.Name + ":" + req.Argument + ":" + req.Value}}, nil
	}
	read := func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "contents of "+req.URI)}}, nil
	}
	var err error
	r.rt, err = dispatch.New(mcp.Implementation{Name: "remote", Version: "2.0.0"},
		dispatch.WithLogger(quiet), dispatch.WithClientLogging(),
		dispatch.WithSubscriptions(hb), dispatch.WithCatalog(r.reg),
		dispatch.WithTool(mcp.Tool{Name: "work", Description: "Works."}, work),
		dispatch.WithTool(mcp.Tool{Name: "ask"}, ask),
		dispatch.WithPrompt(mcp.Prompt{Name: "review", Arguments: []mcp.PromptArgument{{Name: "lang", Required: true}}}, prompt,
			dispatch.WithCompletion("lang", complete)),
		dispatch.WithResource(mcp.Resource{URI: "docs://guide", Name: "guide"}, read),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://pages/{page}", Name: "pages"}, read,
			dispatch.WithCompletion("page", complete)),
	)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dial(t *testing.T, tr client.Transport, opts ...proxy.Option) *proxy.Backend {
	t.Helper()
	b, err := proxy.Dial(context.Background(), tr, append([]proxy.Option{proxy.WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func toolNames(t *testing.T, c *client.Client) string {
	t.Helper()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, ",")
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("not text: %+v", res.Content[0])
	}
	return tc.Text
}

// A 2026-07-28 client of the proxy reaches every kind of component of a
// remote of each revision: calls with progress and log messages, input relayed in both
// directions, reads, prompts, completions.
func TestProxyForwardsEverything(t *testing.T) {
	for _, version := range []string{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618} {
		t.Run(version, func(t *testing.T) {
			r := newRemote(t)
			var tr client.Transport = inprocess.New(r.rt)
			switch version {
			case mcp.Version20250618:
				// An initialize-era remote over stdio.
				tr = stdioTransport(t, r.rt)
			case mcp.Version20251125:
				// An initialize-era remote over HTTP with sessions.
				h, err := streamablehttp.NewHandler(r.rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{}))
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(h)
				t.Cleanup(func() { srv.Close(); _ = h.Close() })
				tr = &client.HTTPTransport{URL: srv.URL + "/mcp"}
			}
			b := dial(t, tr, proxy.WithClientOptions(client.WithProtocolVersions(version)))
			if got := b.Server().ProtocolVersion; got != version {
				t.Fatalf("the proxy speaks %s to the remote", got)
			}
			var mu sync.Mutex
			var logs []string
			c := testkit.Connect(t, inprocess.New(b.Runtime()),
				client.WithLogMessages("debug", func(m mcp.LogMessage) {
					mu.Lock()
					defer mu.Unlock()
					logs = append(logs, m.Level)
				}),
				client.WithElicitation(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				}))

			ctx := context.Background()
			if got := toolNames(t, c); got != "ask,work" {
				t.Fatalf("tools: %s", got)
			}
			var progress []float64
			res, err := c.CallTool(ctx, "work", map[string]any{"n": 1}, client.WithProgress(func(p mcp.Progress) { progress = append(progress, p.Progress) }))
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != `worked on {"n":1}` {
				t.Fatalf("work: %q", got)
			}
			if !slices.Equal(progress, []float64{1, 2}) {
				t.Fatalf("progress: %v", progress)
			}
			if version == mcp.Version20260728 {
				// Initialize-era servers send log messages at the
				// session's level, to the proxy's client.
				mu.Lock()
				if !slices.Equal(logs, []string{"info"}) {
					t.Errorf("log messages: %v", logs)
				}
				mu.Unlock()
			}
			// Input is relayed from every revision (relay_test.go has
			// the initialize-era clients).
			res, err = c.CallTool(ctx, "ask", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "hello Ada round1" {
				t.Fatalf("input relayed: %q", got)
			}
			read, err := c.ReadResource(ctx, "docs://pages/intro")
			if err != nil {
				t.Fatal(err)
			}
			if read.Contents[0].Text != "contents of docs://pages/intro" {
				t.Fatalf("read: %+v", read.Contents[0])
			}
			p, err := c.GetPrompt(ctx, "review", map[string]string{"lang": "go"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Messages[0].Content.(*mcp.TextContent).Text != "review go" {
				t.Fatalf("prompt: %+v", p.Messages[0])
			}
			comp, err := c.Complete(ctx, mcp.Reference{Type: mcp.RefResource, URI: "docs://pages/{page}"}, "page", "in", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(comp.Completion.Values, []string{"docs://pages/{page}:page:in"}) {
				t.Fatalf("completion: %v", comp.Completion.Values)
			}
			// A remote protocol error passes through as it is.
			_, err = c.GetPrompt(ctx, "review", nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("missing argument: %v", err)
			}
		})
	}
}

// The remote's list changes reach the proxy's listeners, and the
// catalog follows them.
func TestProxyFollowsListChanges(t *testing.T) {
	r := newRemote(t)
	b := dial(t, inprocess.New(r.rt))
	hb := b.Runtime().SubscriptionSource().(*hub.Hub)
	l := hb.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	defer l.Close()
	woke := make(chan struct{}, 1)
	l2 := hb.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	defer l2.Close()
	if _, err := l2.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatalf("an event before any change: %v", err)
	}
	if err := r.reg.AddTool(mcp.Tool{Name: "late"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("late"), nil
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-woke:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the remote's change did not reach the proxy's hub")
	}
	names := []string{}
	for _, tl := range b.Runtime().Tools() {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "ask,late,work" {
		t.Fatalf("tools after the change: %v", names)
	}
	if !r.reg.RemoveTool("late") {
		t.Fatal("RemoveTool")
	}
	if err := b.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tools := b.Runtime().Tools(); len(tools) != 2 {
		t.Fatalf("tools after the removal: %v", tools)
	}
}

// The catalog is bounded: the items past MaxItems are left out.
func TestProxyBoundsTheCatalog(t *testing.T) {
	r := newRemote(t)
	b := dial(t, inprocess.New(r.rt), proxy.WithLimits(proxy.Limits{MaxItems: 3}))
	rt := b.Runtime()
	if n := len(rt.Tools()) + len(rt.Prompts()) + len(rt.Resources()) + len(rt.ResourceTemplates()); n != 3 {
		t.Fatalf("%d items held, want 3", n)
	}
	if _, err := proxy.Dial(context.Background(), inprocess.New(r.rt), proxy.WithLimits(proxy.Limits{MaxItems: -1})); err == nil {
		t.Fatal("a negative bound was accepted")
	}
}

func TestGroupIsBounded(t *testing.T) {
	r := newRemote(t)
	g := proxy.NewGroup(proxy.GroupLimits{MaxBackends: 1})
	defer g.Close()
	ctx := context.Background()
	if _, err := g.Dial(ctx, "a", inprocess.New(r.rt), proxy.WithLogger(quiet)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Dial(ctx, "b", inprocess.New(r.rt), proxy.WithLogger(quiet)); !errors.Is(err, proxy.ErrTooManyBackends) {
		t.Fatalf("past MaxBackends: %v", err)
	}
	if n := len(g.Mounts()); n != 1 {
		t.Fatalf("%d mounts", n)
	}
	g2 := proxy.NewGroup(proxy.GroupLimits{})
	defer g2.Close()
	if _, err := g2.Dial(ctx, "a", inprocess.New(r.rt), proxy.WithLogger(quiet)); err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Dial(ctx, "a", inprocess.New(r.rt), proxy.WithLogger(quiet)); err == nil {
		t.Fatal("a prefix used twice was accepted")
	}
}

// Remote lists are cached within their ttlMs: a refresh inside it asks
// the remote nothing, and without a ttl every refresh lists again.
func TestProxyCachesListsWithinTheirTTL(t *testing.T) {
	for _, ttl := range []time.Duration{time.Hour, 0} {
		var mu sync.Mutex
		lists := 0
		count := dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
			if a.Phase == dispatch.PhaseDiscovery && a.Method == "tools/list" && a.Name == "only" {
				mu.Lock()
				lists++
				mu.Unlock()
			}
			return nil
		})
		remote, err := dispatch.New(mcp.Implementation{Name: "remote", Version: "1.0.0"}, dispatch.WithAuthorizer(count),
			dispatch.WithCacheHint(dispatch.CacheTools, ttl, mcp.CachePublic),
			dispatch.WithTool(mcp.Tool{Name: "only"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("ok"), nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		b := dial(t, inprocess.New(remote))
		if err := b.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := 1
		if ttl == 0 {
			want = 2
		}
		mu.Lock()
		if lists != want {
			t.Errorf("ttl %v: the remote listed its tools %d times, want %d", ttl, lists, want)
		}
		mu.Unlock()
	}
}

// A downstream client that cancels its call cancels the remote's.
func TestProxyForwardsCancellation(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	remote, err := dispatch.New(mcp.Implementation{Name: "remote", Version: "1.0.0"}, dispatch.WithLogger(quiet),
		dispatch.WithTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}))
	if err != nil {
		t.Fatal(err)
	}
	b := dial(t, inprocess.New(remote))
	c := testkit.Connect(t, inprocess.New(b.Runtime()))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "wait", nil)
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the call did not reach the remote")
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the remote's call was not cancelled")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
}

// stdioTransport serves rt over in-memory pipes with transports/stdio and
// returns the client transport that reaches it; the server must end once
// the client closes its input.
func stdioTransport(t *testing.T, rt *dispatch.Runtime) client.Transport {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithInput(inR), stdio.WithOutput(outW))
		_ = outW.Close()
		errc <- err
	}()
	// Registered before the backend's Close, so it runs after it.
	t.Cleanup(func() {
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("stdio.Serve: %v", err)
			}
		case <-time.After(testkit.DefaultTimeout):
			t.Error("stdio.Serve did not return")
		}
	})
	return &client.StreamTransport{Reader: outR, Writer: inW}
}

// A proxy client's resource subscription is followed upstream: the
// remote's update reaches it, and one for a resource nobody subscribed
// to does not.
func TestProxyRelaysResourceUpdates(t *testing.T) {
	for _, version := range []string{mcp.Version20260728, mcp.Version20250618} {
		t.Run(version, func(t *testing.T) {
			r := newRemote(t)
			var tr client.Transport = inprocess.New(r.rt)
			if version == mcp.Version20250618 {
				tr = stdioTransport(t, r.rt)
			}
			b := dial(t, tr, proxy.WithClientOptions(client.WithProtocolVersions(version)))
			woke := make(chan struct{}, 1)
			l := b.Runtime().SubscriptionSource().(*hub.Hub).Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{"docs://guide"}}, func() {
				select {
				case woke <- struct{}{}:
				default:
				}
			})
			defer l.Close()
			if _, err := l.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
				t.Fatalf("listener: %v", err)
			}
			// The watcher opens a stream naming the subscribed URI.
			deadline := time.Now().Add(testkit.DefaultTimeout)
			for b.Health().Streams < 2 || r.hub.Stats().Listeners < 1 {
				if time.Now().After(deadline) {
					t.Fatalf("the subscription was not followed upstream: %+v", b.Health())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if _, err := r.hub.ResourceUpdated("docs://other"); err != nil {
				t.Fatal(err)
			}
			if _, err := r.hub.ResourceUpdated("docs://guide"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-woke:
			case <-time.After(testkit.DefaultTimeout):
				t.Fatal("the remote's update did not reach the proxy's subscriber")
			}
			ev, err := l.Next()
			if err != nil || ev.URI != "docs://guide" {
				t.Fatalf("event %+v, %v", ev, err)
			}
			if ev, err := l.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
				t.Fatalf("an update nobody subscribed to arrived: %+v %v", ev, err)
			}
		})
	}
}
