package backplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// catalogCluster is a clustertest cluster whose instances replicate their
// catalog, with a client and a catalog per instance.
type catalogCluster struct {
	*clustertest.Cluster
	cats    []*backplane.Catalog
	clients []*client.Client
}

// emptyObject is the input schema of the catalog's test tools.
var emptyObject = json.RawMessage(`{"type":"object"}`)

// startCatalogCluster starts three instances; define adds, per instance,
// the definitions its catalog knows. Each instance has the static
// resource file:///end/<name>, an end marker for its listen streams.
func startCatalogCluster(t *testing.T, define func(in *clustertest.Instance, d *backplane.Definitions), opts ...backplane.Option) *catalogCluster {
	t.Helper()
	cc := &catalogCluster{cats: make([]*backplane.Catalog, 3)}
	var mu sync.Mutex
	cc.Cluster = clustertest.Start(t, clustertest.Config{
		Instances: 3,
		Options: func(in *clustertest.Instance) []dispatch.Option {
			var d backplane.Definitions
			define(in, &d)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cat, err := backplane.NewCatalog(ctx, in.Conn, in.Hub, &d, append([]backplane.Option{backplane.WithName("clustertest")}, opts...)...)
			if err != nil {
				t.Fatalf("instance %s: %v", in.Name, err)
			}
			t.Cleanup(func() { _ = cat.Close() })
			mu.Lock()
			cc.cats[in.Index] = cat
			mu.Unlock()
			return []dispatch.Option{
				dispatch.WithCatalog(cat.Registry()),
				dispatch.WithResource(mcp.Resource{URI: "file:///end/" + in.Name, Name: "end"},
					func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
						return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "")}}, nil
					}),
			}
		},
	})
	for _, in := range cc.Instances {
		cc.clients = append(cc.clients, testkit.Connect(t, &client.HTTPTransport{URL: in.Server.URL()}, client.WithProtocolVersions(mcp.Version20260728)))
	}
	return cc
}

// nameTool defines a tool that answers the name of the instance it ran on.
func nameTool(in *clustertest.Instance, d *backplane.Definitions, name string) {
	d.DefineTool(mcp.Tool{Name: name, InputSchema: emptyObject},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(in.Name), nil
		})
}

// waitAll waits until every running instance has applied version v.
func (cc *catalogCluster) waitAll(t *testing.T, v uint64, skip ...int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, cat := range cc.cats {
		if slices.Contains(skip, i) {
			continue
		}
		if err := cat.Wait(ctx, v); err != nil {
			t.Fatalf("instance %d: %v (it has %+v)", i, err, cat.Stats())
		}
	}
}

func toolNamesOf(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestCatalogAddOnOneInstanceReachesEvery adds a tool on the first of
// three instances: once every instance has applied the version Add
// returned, the tool is listed and callable on each, running there. It is
// removed on the third instance and then gone everywhere. Every
// instance's listen stream heard exactly one tool-list change per change.
func TestCatalogAddOnOneInstanceReachesEvery(t *testing.T) {
	cc := startCatalogCluster(t, func(in *clustertest.Instance, d *backplane.Definitions) { nameTool(in, d, "extra") })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var subs []*client.Subscription
	for i, c := range cc.clients {
		sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///end/i0"}})
		if err != nil {
			t.Fatalf("listen on i%d: %v", i, err)
		}
		t.Cleanup(func() { _ = sub.Close() })
		subs = append(subs, sub)
	}
	for i, c := range cc.clients {
		if names := toolNamesOf(t, c); len(names) != 0 {
			t.Fatalf("i%d lists %v before any change", i, names)
		}
	}

	v1, err := cc.cats[0].Add(ctx, backplane.Tool("extra"))
	if err != nil {
		t.Fatal(err)
	}
	cc.waitAll(t, v1)
	for i, c := range cc.clients {
		if names := toolNamesOf(t, c); !slices.Equal(names, []string{"extra"}) {
			t.Fatalf("i%d lists %v at version %d", i, names, v1)
		}
		res, err := c.CallTool(ctx, "extra", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("calling extra on i%d: %v %+v", i, err, res)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != fmt.Sprintf("i%d", i) {
			t.Fatalf("extra called on i%d ran on %s", i, got)
		}
	}
	if again, err := cc.cats[1].Add(ctx, backplane.Tool("extra")); err != nil || again != v1 {
		t.Fatalf("adding a present tool again: version %d, %v; want %d", again, err, v1)
	}

	v2, err := cc.cats[2].Remove(ctx, backplane.Tool("extra"))
	if err != nil {
		t.Fatal(err)
	}
	if v2 <= v1 {
		t.Fatalf("the removal's version %d is not after the addition's %d", v2, v1)
	}
	cc.waitAll(t, v2)
	for i, c := range cc.clients {
		if names := toolNamesOf(t, c); len(names) != 0 {
			t.Fatalf("i%d lists %v after the removal", i, names)
		}
		if res, err := c.CallTool(ctx, "extra", map[string]any{}); err == nil && !res.IsError {
			t.Fatalf("extra still callable on i%d: %+v", i, res)
		}
		st := cc.cats[i].Stats()
		if st.Added != 1 || st.Removed != 1 || st.Version != v2 {
			t.Errorf("i%d stats %+v", i, st)
		}
	}

	// Every instance has applied both changes, whose list changes reached
	// its hub then; the end marker, published after, arrives after them.
	if _, err := cc.Instances[0].Events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///end/i0"}); err != nil {
		t.Fatal(err)
	}
	for i, sub := range subs {
		if got := collect(t, sub, "i0"); !slices.Equal(got, []string{"tools", "tools", "updated file:///end/i0"}) {
			t.Errorf("the stream on i%d got %v, want two tool-list changes and the end", i, got)
		}
	}
}

// TestCatalogListSeesOneVersion adds five tools one after the other on
// one instance while a client lists another's tools again and again:
// versions apply in order, each as one snapshot, so every list is the
// catalog at one version (t1..tk for some k), never a mix.
func TestCatalogListSeesOneVersion(t *testing.T) {
	const n = 5
	cc := startCatalogCluster(t, func(in *clustertest.Instance, d *backplane.Definitions) {
		for i := 1; i <= n; i++ {
			nameTool(in, d, fmt.Sprintf("t%d", i))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stop := make(chan struct{})
	lists := make(chan []string, 1)
	go func() {
		defer close(lists)
		seen := map[string]bool{}
		for {
			select {
			case <-stop:
				return
			default:
			}
			tools, err := cc.clients[2].ListTools(ctx)
			if err != nil {
				return
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if k := strings.Join(names, ","); !seen[k] {
				seen[k] = true
				select {
				case lists <- names:
				case <-stop:
					return
				}
			}
		}
	}()
	var last uint64
	for i := 1; i <= n; i++ {
		v, err := cc.cats[0].Add(ctx, backplane.Tool(fmt.Sprintf("t%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		last = v
	}
	cc.waitAll(t, last)
	var seen [][]string
	want := []string{"t1", "t2", "t3", "t4", "t5"}
	for names := range lists {
		seen = append(seen, names)
		if !slices.Equal(names, want[:len(names)]) {
			t.Errorf("a list saw %v: not the catalog at one version", names)
		}
		if len(names) == n {
			break
		}
	}
	close(stop)
	for range lists {
	}
	if len(seen) == 0 || len(seen[len(seen)-1]) != n {
		t.Fatalf("the lists never saw all five tools: %v", seen)
	}
	for i, c := range cc.clients {
		if names := toolNamesOf(t, c); !slices.Equal(names, want) {
			t.Errorf("i%d lists %v", i, names)
		}
	}
}

// recordingHandler keeps the records logged at Warn or above.
type recordingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	s := r.Message
	r.Attrs(func(a slog.Attr) bool { s += " " + a.String(); return true })
	h.mu.Lock()
	h.msgs = append(h.msgs, s)
	h.mu.Unlock()
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

// TestCatalogUndefinedComponentIsReported adds a tool only the first
// instance defines: the others log it and count it, list without it and
// keep serving, and the first serves it.
func TestCatalogUndefinedComponentIsReported(t *testing.T) {
	h := &recordingHandler{}
	cc := startCatalogCluster(t, func(in *clustertest.Instance, d *backplane.Definitions) {
		nameTool(in, d, "common")
		if in.Index == 0 {
			nameTool(in, d, "only-i0")
		}
	}, backplane.WithLogger(slog.New(h)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cc.cats[1].Add(ctx, backplane.Tool("only-i0")); err == nil {
		t.Fatal("an instance added a tool it does not define")
	}
	v, err := cc.cats[0].Add(ctx, backplane.Tool("only-i0"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := cc.cats[0].Add(ctx, backplane.Tool("common"))
	if err != nil {
		t.Fatal(err)
	}
	cc.waitAll(t, v2)
	for i, c := range cc.clients {
		want := []string{"common"}
		undefined := int64(1)
		if i == 0 {
			want, undefined = []string{"common", "only-i0"}, 0
		}
		if names := toolNamesOf(t, c); !slices.Equal(names, want) {
			t.Errorf("i%d lists %v, want %v", i, names, want)
		}
		if st := cc.cats[i].Stats(); st.Undefined != undefined {
			t.Errorf("i%d counted %d undefined components, want %d", i, st.Undefined, undefined)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.msgs) != 2 {
		t.Fatalf("logged %q, want one line from each of two instances", h.msgs)
	}
	for _, m := range h.msgs {
		if !strings.Contains(m, `tool "only-i0"`) || !strings.Contains(m, fmt.Sprintf("version=%d", v)) {
			t.Errorf("the log line %q does not name the component and its version", m)
		}
	}
}

// TestCatalogCatchesUpAfterNATSRestart restarts the NATS server, then
// adds a tool: every instance watches the catalog again from the version
// after its last and applies it.
func TestCatalogCatchesUpAfterNATSRestart(t *testing.T) {
	cc := startCatalogCluster(t, func(in *clustertest.Instance, d *backplane.Definitions) { nameTool(in, d, "late") })
	cc.NATS.Stop(t)
	cc.NATS.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var v uint64
	var err error
	// The first request may meet JetStream still starting.
	t0 := time.Now()
	for v, err = cc.cats[0].Add(ctx, backplane.Tool("late")); err != nil; v, err = cc.cats[0].Add(ctx, backplane.Tool("late")) {
		t.Logf("%v %v", time.Since(t0), err)
		if ctx.Err() != nil {
			t.Fatalf("adding after the restart: %v", err)
		}
	}
	t.Logf("added at %v", time.Since(t0))
	cc.waitAll(t, v)
	t.Logf("applied at %v", time.Since(t0))
	for i, c := range cc.clients {
		if names := toolNamesOf(t, c); !slices.Equal(names, []string{"late"}) {
			t.Errorf("i%d lists %v", i, names)
		}
		if st := cc.cats[i].Stats(); st.Rewatches == 0 {
			t.Errorf("i%d did not watch again after the restart: %+v", i, st)
		}
	}
}
