// Benchmarks of a listen stream's events and filter.

package dispatch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// BenchmarkStreamEvent measures one event through a listen stream: the
// source's Next, the filter check and the tagged encoding.
func BenchmarkStreamEvent(b *testing.B) {
	hub := hub.New(hub.Options{})
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
	rt := mustNew(b, dispatch.WithSubscriptions(hub.New(hub.Options{})),
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
