package backplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
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

// BenchmarkFanOutThroughput publishes events in bursts of 1,024 on one
// instance and reads each burst on a listener of another, through an
// embedded NATS server on 127.0.0.1; it reports the events delivered per
// second. (A burst larger than an instance's inbox, 4,096 events waiting
// for its hub, is partly dropped by the NATS client and resynchronised:
// see Events.)
func BenchmarkFanOutThroughput(b *testing.B) {
	const burst = 1024
	ns := startNATS(b)
	a := newInstance(b, "a", ns.connect(b), hub.Options{})
	r := newInstance(b, "b", ns.connect(b), hub.Options{MaxBuffer: burst})
	woke := make(chan struct{}, 1)
	l := r.hub.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched}}, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	ev := dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: watched}
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; {
		n := min(burst, b.N-sent)
		for range n {
			if _, err := a.events.Publish(ev); err != nil {
				b.Fatal(err)
			}
		}
		sent += n
		for got := 0; got < n; {
			if _, err := l.Next(); err == nil {
				got++
				continue
			}
			select {
			case <-woke:
			case <-time.After(10 * time.Second):
				b.Fatalf("%d of a burst of %d events in 10 s", got, n)
			}
		}
	}
	b.StopTimer()
	if d := l.Dropped(); d != 0 {
		b.Fatalf("the listener dropped %d events", d)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// echoCall is a 2026-07-28 tools/call of echo, as the load harness sends it.
var echoCall = []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo",` +
	`"arguments":{"text":"The quick brown fox jumps over the lazy dog, 0123456789."},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}}}`)

// BenchmarkPlainCall is a whole tools/call (decode, admit, execute,
// encode) on a Runtime whose listen streams and catalog are a local hub
// and registry ("local") or the backplane's Events and its registry
// ("backplane"). A plain call touches no shared state, so the two should
// cost the same: compare them with benchstat.
func BenchmarkPlainCall(b *testing.B) {
	echo := func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return nil, err
		}
		return mcp.TextResult(a.Text), nil
	}
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	run := func(b *testing.B, src dispatch.SubscriptionSource, reg *hub.Registry) {
		if err := reg.AddTool(mcp.Tool{Name: "echo", InputSchema: schema}, echo); err != nil {
			b.Fatal(err)
		}
		rt, err := dispatch.New(mcp.Implementation{Name: "bench", Version: "1"},
			dispatch.WithLogger(slog.New(slog.DiscardHandler)),
			dispatch.WithSubscriptions(src), dispatch.WithCatalog(reg))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		want := []byte(`"text":"The quick brown fox jumps over the lazy dog, 0123456789."`)
		b.ReportAllocs()
		for b.Loop() {
			msg, err := jsonrpc.Decode(echoCall)
			if err != nil {
				b.Fatal(err)
			}
			if out := rt.Dispatch(ctx, &dispatch.Request{Message: msg, Transport: dispatch.TransportStdio}); !bytes.Contains(out.Frame, want) {
				b.Fatalf("unexpected frame %s", out.Frame)
			}
		}
	}
	b.Run("local", func(b *testing.B) {
		h := hub.New(hub.Options{})
		run(b, h, hub.NewRegistry(h))
	})
	b.Run("backplane", func(b *testing.B) {
		ns := startNATS(b)
		in := newInstance(b, "a", ns.connect(b), hub.Options{})
		run(b, in.events, in.events.NewRegistry())
	})
}
