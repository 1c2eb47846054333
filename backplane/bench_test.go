package backplane_test

import (
	"slices"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// BenchmarkFanOut measures one event's trip from Publish on one instance
// to Next on a listener of another, through an embedded NATS server on
// 127.0.0.1, one event at a time; it reports the p50 and p99 latency.
func BenchmarkFanOut(b *testing.B) {
	ns := startNATS(b)
	a := newInstance(b, "a", ns.connect(b), hub.Options{})
	r := newInstance(b, "b", ns.connect(b), hub.Options{})
	woke := make(chan struct{}, 1)
	l := r.hub.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	lat := make([]time.Duration, 0, b.N)
	ev := dispatch.Event{Kind: dispatch.EventToolsListChanged}
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := a.events.Publish(ev); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := l.Next(); err == nil {
				break
			}
			select {
			case <-woke:
			case <-time.After(10 * time.Second):
				b.Fatal("no event in 10 s")
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
