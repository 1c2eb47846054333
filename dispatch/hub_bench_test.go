package dispatch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// BenchmarkHubPublish measures one Publish to 1,000 listeners that wait
// for an event (each is woken and takes it), the cost of a list change on
// a busy server.
func BenchmarkHubPublish(b *testing.B) {
	hub := dispatch.NewHub(dispatch.HubOptions{})
	var ls []*dispatch.HubListener
	for range 1000 {
		l := hub.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {})
		ls = append(ls, l)
		_, _ = l.Next()
	}
	b.ReportAllocs()
	for b.Loop() {
		hub.ToolsListChanged()
		for _, l := range ls {
			_, _ = l.Next()
			_, _ = l.Next() // waiting again
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/listener")
}

// BenchmarkStreamEvent measures one event through a listen stream: the
// source's Next, the filter check and the tagged encoding.
func BenchmarkStreamEvent(b *testing.B) {
	hub := dispatch.NewHub(dispatch.HubOptions{})
	rt := mustNew(b, dispatch.WithSubscriptions(hub), dispatch.WithResource(mcp.Resource{URI: "file:///a", Name: "a"}, okResource))
	c, out := listenCall(b, rt, 1, map[string]any{"resourceSubscriptions": []string{"file:///a"}})
	if c == nil {
		b.Fatalf("%s", out.Frame)
	}
	s, out := rt.OpenStream(context.Background(), c, func() {})
	if s == nil {
		b.Fatalf("%s", out.Frame)
	}
	defer s.Close()
	s.Next() // acknowledgement
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hub.ResourceUpdated("file:///a"); err != nil {
			b.Fatal(err)
		}
		if f, _ := s.Next(); f == nil {
			b.Fatal("no event")
		}
	}
}

// BenchmarkListenFilter measures decoding and admitting a listen with
// 1,000 URIs (parsing, bounds, absolute-URI checks, deduplication): the
// filter check is linear in its size.
func BenchmarkListenFilter(b *testing.B) {
	rt := mustNew(b, dispatch.WithSubscriptions(dispatch.NewHub(dispatch.HubOptions{})),
		dispatch.WithResource(mcp.Resource{URI: "file:///a", Name: "a"}, okResource))
	uris := make([]string, 1000)
	for i := range uris {
		uris[i] = fmt.Sprintf("file:///r/%d", i)
	}
	raw := testkit.Request(1, dispatch.MethodListen, map[string]any{"notifications": map[string]any{"resourceSubscriptions": uris}})
	b.ReportAllocs()
	for b.Loop() {
		msg, err := jsonrpc.Decode(raw)
		if err != nil {
			b.Fatal(err)
		}
		if c, out := rt.Admit(&dispatch.Request{Message: msg}); c == nil {
			b.Fatalf("%s", out.Frame)
		}
	}
}
