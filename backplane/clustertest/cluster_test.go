package clustertest_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

const (
	watched = "file:///watched"
	end     = "file:///end"
)

// start runs three instances, each with a tool "whoami" that answers the
// instance's name and the resources watched and end.
func start(t *testing.T) *clustertest.Cluster {
	t.Helper()
	read := func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "x")}}, nil
	}
	return clustertest.Start(t, clustertest.Config{
		Instances: 3,
		Options: func(in *clustertest.Instance) []dispatch.Option {
			return []dispatch.Option{
				dispatch.WithTool(mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
					func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
						return mcp.TextResult(in.Name), nil
					}),
				dispatch.WithResource(mcp.Resource{URI: watched, Name: "watched"}, read),
				dispatch.WithResource(mcp.Resource{URI: end, Name: "end"}, read),
			}
		},
	})
}

// connect connects a 2026-07-28 client through the proxy.
func connect(t *testing.T, cl *clustertest.Cluster) *client.Client {
	t.Helper()
	return testkit.Connect(t, &client.HTTPTransport{URL: cl.URL()}, client.WithProtocolVersions(mcp.Version20260728))
}

// whoami calls the tool and returns the name of the instance that ran it.
func whoami(t *testing.T, c *client.Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "whoami", map[string]any{})
	if err != nil {
		t.Fatalf("whoami: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("whoami: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("whoami: content %T", res.Content[0])
	}
	return tc.Text
}

func served(cl *clustertest.Cluster) []int64 {
	var n []int64
	for _, in := range cl.Instances {
		n = append(n, in.Served())
	}
	return n
}

// TestProxySendsEachRequestToTheNextInstance calls a tool that names its
// instance six times through the proxy: consecutive calls land on
// different instances, each instance runs two, and each instance's
// listener counted the requests it served.
func TestProxySendsEachRequestToTheNextInstance(t *testing.T) {
	cl := start(t)
	c := connect(t, cl)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "whoami" {
		t.Fatalf("tools/list: %+v", tools)
	}
	before := served(cl)
	var names []string
	for range 6 {
		names = append(names, whoami(t, c))
	}
	after := served(cl)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Fatalf("consecutive calls on the same instance: %v", names)
		}
	}
	for i, in := range cl.Instances {
		if n := countOf(names, in.Name); n != 2 {
			t.Errorf("instance %s ran %d of the calls %v, want 2", in.Name, n, names)
		}
		if d := after[i] - before[i]; d != 2 {
			t.Errorf("instance %s served %d requests, want 2", in.Name, d)
		}
	}
	if cl.Skipped() != 0 {
		t.Errorf("the proxy skipped %d instances, none is stopped", cl.Skipped())
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}

// listen opens a listen stream through the proxy and returns it with the
// instance that holds it (the one whose listener served the request).
func listen(t *testing.T, cl *clustertest.Cluster, c *client.Client) (*client.Subscription, *clustertest.Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := served(cl)
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{watched, end}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	var holder *clustertest.Instance
	for i, n := range served(cl) {
		switch d := n - before[i]; {
		case d == 1 && holder == nil:
			holder = cl.Instances[i]
		case d != 0:
			t.Fatalf("listen: requests served per instance went from %v to %v", before, served(cl))
		}
	}
	if holder == nil {
		t.Fatalf("listen: no instance served it (%v)", before)
	}
	return sub, holder
}

func label(ev client.Event) string {
	switch ev.Method {
	case "notifications/resources/updated":
		return "updated " + ev.URI
	case "notifications/tools/list_changed":
		return "tools"
	}
	return ev.Method
}

// collectUntil reads sub until the event labelled last.
func collectUntil(t *testing.T, sub *client.Subscription, last string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %v, still waiting for %q: %v", got, last, err)
		}
		got = append(got, label(ev))
		if got[len(got)-1] == last {
			return got
		}
	}
}

func publish(t *testing.T, in *clustertest.Instance, ev dispatch.Event) {
	t.Helper()
	if _, err := in.Events.Publish(ev); err != nil {
		t.Fatal(err)
	}
}

// TestListenThroughProxyHearsAnotherInstanceOnce opens a listen stream
// through the proxy, publishes a resource update and a tool-list change
// on another instance, then an end marker after them (NATS keeps one
// connection's messages in order): the stream got each exactly once.
func TestListenThroughProxyHearsAnotherInstanceOnce(t *testing.T) {
	cl := start(t)
	c := connect(t, cl)
	sub, holder := listen(t, cl, c)
	other := cl.Instances[(holder.Index+1)%len(cl.Instances)]
	publish(t, other, dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched})
	publish(t, other, dispatch.Event{Kind: dispatch.EventToolsListChanged})
	publish(t, other, dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: end})
	got := collectUntil(t, sub, "updated "+end)
	if want := []string{"updated " + watched, "tools", "updated " + end}; !slices.Equal(got, want) {
		t.Fatalf("the stream on %s got %v from %s, want %v", holder.Name, got, other.Name, want)
	}
}

// TestStoppedInstanceIsSkipped stops one of three instances: the proxy
// fails to dial it and sends the request to the next, so every call
// through it succeeds, on the two others, and the stopped one serves
// nothing more.
func TestStoppedInstanceIsSkipped(t *testing.T) {
	cl := start(t)
	c := connect(t, cl)
	stopped := cl.Instances[1]
	stopped.Stop(t)
	before, skipped := stopped.Served(), cl.Skipped()
	var names []string
	for range 6 {
		names = append(names, whoami(t, c))
	}
	if n := countOf(names, stopped.Name); n != 0 {
		t.Fatalf("the stopped instance ran %d calls: %v", n, names)
	}
	// Of six consecutive turns, two were the stopped instance's, and went
	// to the one after it.
	if n0, n2 := countOf(names, "i0"), countOf(names, "i2"); n0 != 2 || n2 != 4 {
		t.Errorf("calls ran on %v, want i0 twice and i2 four times", names)
	}
	if d := cl.Skipped() - skipped; d != 2 {
		t.Errorf("the proxy skipped %d times, want 2", d)
	}
	if stopped.Served() != before {
		t.Errorf("the stopped instance served %d more requests", stopped.Served()-before)
	}
}

// TestListenAcrossNATSRestart stops and starts the NATS server under an
// open listen stream: the stream stays open, is resynchronised when its
// instance reconnects, and then hears another instance again.
func TestListenAcrossNATSRestart(t *testing.T) {
	cl := start(t)
	c := connect(t, cl)
	sub, holder := listen(t, cl, c)
	cl.NATS.Stop(t)
	cl.NATS.Start(t)
	// The resynchronisation: a tool-list change and an update of each
	// subscribed resource, the end marker among them.
	got := collectUntil(t, sub, "tools")
	if len(got) != 1 {
		t.Fatalf("before the resynchronisation the stream got %v", got)
	}
	// Then one update of each subscribed resource, in either order.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got = nil
	for range 2 {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("resynchronisation: after %v: %v", got, err)
		}
		got = append(got, label(ev))
	}
	slices.Sort(got)
	if want := []string{"updated " + end, "updated " + watched}; !slices.Equal(got, want) {
		t.Fatalf("resynchronisation: %v, want %v", got, want)
	}
	other := cl.Instances[(holder.Index+1)%len(cl.Instances)]
	publish(t, other, dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched})
	publish(t, other, dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: end})
	got = collectUntil(t, sub, "updated "+end)
	if want := []string{"updated " + watched, "updated " + end}; !slices.Equal(got, want) {
		t.Fatalf("after the restart the stream on %s got %v from %s, want %v", holder.Name, got, other.Name, want)
	}
}

// TestStopEndsTheInstancesStreams stops the instance holding a listen
// stream: the stream ends with an error, and the next call through the
// proxy succeeds on another instance.
func TestStopEndsTheInstancesStreams(t *testing.T) {
	cl := start(t)
	c := connect(t, cl)
	sub, holder := listen(t, cl, c)
	holder.Stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("the stream on the stopped instance did not end in 10 s")
			}
			break
		}
		t.Logf("event before the end: %s", label(ev))
	}
	if name := whoami(t, c); name == holder.Name {
		t.Fatalf("the stopped instance %s ran a call", name)
	}
}
