package otel_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	snodootel "github.com/snodo-go/snodo/instrumentation/otel"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

type fixture struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	sink   instrumentation.Sink
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	t.Cleanup(func() {
		_ = f.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	var err error
	if f.sink, err = snodootel.New(snodootel.WithTracerProvider(f.tp), snodootel.WithMeterProvider(mp)); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func attr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

func TestSpansFollowTheRequestTraceContext(t *testing.T) {
	f := newFixture(t)
	rt, err := dispatch.New(mcp.Implementation{Name: "otel", Version: "1"},
		dispatch.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		dispatch.WithInstrumentation(f.sink),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			// The handler's own span nests under the call's.
			_, inner := f.tp.Tracer("app").Start(ctx, "inner")
			inner.End()
			return mcp.TextResult("hi"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "boom"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}))
	if err != nil {
		t.Fatal(err)
	}
	testfixture.DispatchRequest(t, rt, testkit.Request(1, "tools/call", map[string]any{
		"name": "echo", "_meta": map[string]any{"traceparent": parent, "tracestate": "rojo=1"},
	}), func(r *dispatch.Request) { r.Transport = dispatch.TransportHTTP })
	testfixture.Dispatch(t, rt, testkit.Request(2, "tools/call", map[string]any{"name": "unknown"}))
	testfixture.Dispatch(t, rt, testkit.Request(3, "tools/call", map[string]any{"name": "boom"}))

	spans := f.spans.Ended()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (inner, echo, unknown, boom)", len(spans))
	}
	inner, call := spans[0], spans[1]
	if call.Name() != "tools/call echo" || call.SpanKind() != trace.SpanKindServer {
		t.Fatalf("call span %q kind %v", call.Name(), call.SpanKind())
	}
	if got := call.Parent().TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" || call.Parent().SpanID().String() != "00f067aa0ba902b7" || !call.Parent().IsRemote() {
		t.Fatalf("call span's parent %v is not the request's traceparent", call.Parent())
	}
	if call.SpanContext().TraceState().Get("rojo") != "1" {
		t.Fatalf("tracestate not propagated: %v", call.SpanContext().TraceState())
	}
	if inner.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Fatal("the handler's span is not a child of the call's")
	}
	a := call.Attributes()
	if attr(a, "mcp.method.name") != "tools/call" || attr(a, "gen_ai.tool.name") != "echo" || attr(a, "jsonrpc.request.id") != "1" ||
		attr(a, "mcp.protocol.version") != "2026-07-28" || attr(a, "network.transport") != "tcp" || call.Status().Code != codes.Unset {
		t.Fatalf("call span attributes %v, status %v", a, call.Status())
	}
	unknown := spans[2]
	if unknown.Name() != "tools/call" || attr(unknown.Attributes(), "error.type") != "-32602" || unknown.Status().Code != codes.Error || unknown.Parent().IsValid() {
		t.Fatalf("unknown tool span %q %v %v parent %v", unknown.Name(), unknown.Attributes(), unknown.Status(), unknown.Parent())
	}
	boom := spans[3]
	if attr(boom.Attributes(), "error.type") != "panic" || attr(boom.Attributes(), "snodo.panic.type") != "string" || boom.Status().Code != codes.Error {
		t.Fatalf("panic span %v %v", boom.Attributes(), boom.Status())
	}

	hist, ok := f.metrics(t)["mcp.server.operation.duration"].Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatal("no duration histogram")
	}
	byErr := map[string]uint64{}
	for _, dp := range hist.DataPoints {
		v, _ := dp.Attributes.Value("error.type")
		byErr[v.String()] += dp.Count
	}
	if byErr[""] != 1 || byErr["-32602"] != 1 || byErr["panic"] != 1 {
		t.Fatalf("durations by error.type %v", byErr)
	}
}

func TestExecutorAndSubscriptionMetrics(t *testing.T) {
	f := newFixture(t)
	e := executor.New(executor.Config{MaxConcurrency: 1, MaxQueue: 1, MaxSubscriptions: 1, Sink: f.sink,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer e.Close(context.Background())
	scope := e.NewScope(context.Background())
	defer scope.Close()
	release, started, done := make(chan struct{}), make(chan struct{}), make(chan struct{}, 2)
	if _, err := scope.Submit(nil, executor.Job{Run: func(context.Context) any { close(started); <-release; return nil }, Done: func(executor.Result) { done <- struct{}{} }}); err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := scope.Submit(nil, executor.Job{Run: func(context.Context) any { return nil }, Done: func(executor.Result) { done <- struct{}{} }}); err != nil {
		t.Fatal(err)
	}
	if _, err := scope.Submit(nil, executor.Job{Run: func(context.Context) any { return nil }}); err == nil {
		t.Fatal("a third job was admitted past the queue")
	}
	m := f.metrics(t)
	depth := m["snodo.executor.queue.depth"].Data.(metricdata.Gauge[int64]).DataPoints[0].Value
	rejected := m["snodo.executor.rejections"].Data.(metricdata.Sum[int64]).DataPoints[0]
	reason, _ := rejected.Attributes.Value("snodo.rejection.reason")
	if depth != 1 || rejected.Value != 1 || reason.String() != "overloaded" {
		t.Fatalf("queue depth %d, rejections %d (%s)", depth, rejected.Value, reason.String())
	}
	close(release)
	<-done
	<-done
	rel, ok := e.AcquireSubscription()
	if !ok {
		t.Fatal("no subscription slot")
	}
	if open := f.metrics(t)["snodo.subscriptions.open"].Data.(metricdata.Gauge[int64]).DataPoints[0].Value; open != 1 {
		t.Fatalf("open subscriptions %d", open)
	}
	rel()
	m = f.metrics(t)
	if open := m["snodo.subscriptions.open"].Data.(metricdata.Gauge[int64]).DataPoints[0].Value; open != 0 {
		t.Fatalf("open subscriptions after release %d", open)
	}
	var completed int64
	for _, dp := range m["snodo.executor.jobs"].Data.(metricdata.Sum[int64]).DataPoints {
		if v, _ := dp.Attributes.Value("snodo.job.status"); v.String() == "completed" {
			completed = dp.Value
		}
	}
	if completed != 2 {
		t.Fatalf("completed jobs %d, want 2", completed)
	}
	if hist := m["snodo.executor.queue.wait"].Data.(metricdata.Histogram[float64]); hist.DataPoints[0].Count != 2 {
		t.Fatalf("queue waits recorded %d, want 2", hist.DataPoints[0].Count)
	}
}

func TestNewRefusesNilProviders(t *testing.T) {
	for want, opt := range map[string]snodootel.Option{
		"otel: WithTracerProvider: nil TracerProvider": snodootel.WithTracerProvider(nil),
		"otel: WithMeterProvider: nil MeterProvider":   snodootel.WithMeterProvider(nil),
		"otel: WithPropagator: nil TextMapPropagator":  snodootel.WithPropagator(nil),
	} {
		if _, err := snodootel.New(opt); err == nil || err.Error() != want {
			t.Errorf("New: %v, want %q", err, want)
		}
	}
}

// A transport's refusal is counted by reason, transport and status.
func TestRefusalMetric(t *testing.T) {
	f := newFixture(t)
	f.sink.Refusal(instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalOrigin, Status: 403, Code: -32600, HTTPMethod: "POST"})
	f.sink.Refusal(instrumentation.RefusalEvent{Transport: "http", Reason: instrumentation.RefusalOrigin, Status: 403, Code: -32600, HTTPMethod: "POST"})
	f.sink.Refusal(instrumentation.RefusalEvent{Transport: "stdio", Reason: instrumentation.RefusalLineTooLong, Code: -32600})
	got := map[string]int64{}
	for _, dp := range f.metrics(t)["snodo.transport.refusals"].Data.(metricdata.Sum[int64]).DataPoints {
		status, _ := dp.Attributes.Value("http.response.status_code")
		got[attr(dp.Attributes.ToSlice(), "snodo.refusal.reason")+" "+attr(dp.Attributes.ToSlice(), "network.transport")+" "+status.String()] = dp.Value
	}
	if got["origin tcp 403"] != 2 || got["line_too_long pipe "] != 1 || len(got) != 2 {
		t.Fatalf("refusals counted %v", got)
	}
}

func TestPolicyMetrics(t *testing.T) {
	f := newFixture(t)
	f.sink.Policy(instrumentation.PolicyEvent{Kind: instrumentation.PolicyAdmitted, Policy: "concurrency", Method: "tools/call", Component: "search", Wait: 2 * time.Second})
	f.sink.Policy(instrumentation.PolicyEvent{Kind: instrumentation.PolicyRefused, Policy: "rate", Reason: "keys", Method: "tools/call", Component: "search"})
	m := f.metrics(t)
	got := map[string]int64{}
	for _, dp := range m["snodo.policy.decisions"].Data.(metricdata.Sum[int64]).DataPoints {
		d, _ := dp.Attributes.Value("snodo.policy.decision")
		p, _ := dp.Attributes.Value("snodo.policy")
		c, _ := dp.Attributes.Value("snodo.component")
		got[p.String()+"/"+d.String()+"/"+c.String()] = dp.Value
	}
	if got["concurrency/admitted/search"] != 1 || got["rate/refused_keys/search"] != 1 || len(got) != 2 {
		t.Fatalf("policy decisions %v", got)
	}
	hist := m["snodo.policy.wait"].Data.(metricdata.Histogram[float64])
	if len(hist.DataPoints) != 1 || hist.DataPoints[0].Count != 1 || hist.DataPoints[0].Sum != 2 {
		t.Fatalf("policy waits %+v", hist.DataPoints)
	}
}
