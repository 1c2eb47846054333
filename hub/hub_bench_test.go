package hub_test

import (
	"testing"

	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// BenchmarkHubPublish measures one Publish to 1,000 listeners that wait
// for an event (each is woken and takes it), the cost of a list change on
// a busy server.
func BenchmarkHubPublish(b *testing.B) {
	h := hub.New(hub.Options{})
	var ls []*hub.Listener
	for range 1000 {
		l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {})
		ls = append(ls, l)
		_, _ = l.Next()
	}
	b.ReportAllocs()
	for b.Loop() {
		h.ToolsListChanged()
		for _, l := range ls {
			_, _ = l.Next()
			_, _ = l.Next() // waiting again
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/listener")
}
