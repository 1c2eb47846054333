package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

type sinkKey struct{}

// instrumented builds a Runtime with a few components and a recording sink
// whose DispatchStart puts a value in the handler's context.
func instrumented(t testing.TB, logger *slog.Logger) (*dispatch.Runtime, *testfixture.Events, *[]string) {
	t.Helper()
	events := &testfixture.Events{OnStart: func(ctx context.Context, e instrumentation.DispatchStart) context.Context {
		return context.WithValue(ctx, sinkKey{}, "from-sink:"+e.Method)
	}}
	var seen []string // what handlers found in their context
	opts := []dispatch.Option{
		dispatch.WithInstrumentation(events),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			seen = append(seen, fmt.Sprint(ctx.Value(sinkKey{})), req.Info.TraceContext().TraceParent)
			return mcp.TextResult(string(req.Arguments)), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "fails"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("disk full")
		}),
		dispatch.WithTool(mcp.Tool{Name: "panics"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("secret-in-panic")
		}),
		dispatch.WithTool(mcp.Tool{Name: "asks"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &dispatch.InputRequired{State: []byte("x")}
		}),
		dispatch.WithTool(mcp.Tool{Name: "waits"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return mcp.TextResult("late"), nil
		}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "notes://{user}/{id}", Name: "note"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "body")}}, nil
			}),
	}
	if logger != nil {
		opts = append(opts, dispatch.WithLogger(logger))
	}
	return mustNew(t, opts...), events, &seen
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)) }

func TestInstrumentationStartStop(t *testing.T) {
	rt, events, seen := instrumented(t, nil)
	f := callWith(t, rt, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"text": "payload-secret"},
		"_meta": map[string]any{"traceparent": traceparent, "tracestate": "rojo=1"},
	}, func(r *dispatch.Request) { r.Transport = dispatch.TransportStdio; r.Principal = "principal-secret" })
	resultOf(t, f)

	starts := testfixture.EventsOf[instrumentation.DispatchStart](events)
	stops := testfixture.EventsOf[instrumentation.DispatchStop](events)
	if len(starts) != 1 || len(stops) != 1 || len(events.All()) != 2 {
		t.Fatalf("events: %+v", events.All())
	}
	want := instrumentation.Call{
		Method: "tools/call", Component: "echo", RequestID: "1", ProtocolVersion: mcp.Version20260728,
		Transport: "stdio", Trace: instrumentation.TraceContext{TraceParent: traceparent, TraceState: "rojo=1"},
	}
	if starts[0].Call != want || stops[0].Call != want {
		t.Fatalf("call:\n got %+v\n and %+v\nwant %+v", starts[0].Call, stops[0].Call, want)
	}
	if stops[0].Outcome != instrumentation.OutcomeResult || stops[0].ErrorCode != 0 || stops[0].Duration <= 0 || starts[0].Time.IsZero() {
		t.Fatalf("stop: %+v", stops[0])
	}
	if got := strings.Join(*seen, " "); got != "from-sink:tools/call "+traceparent {
		t.Fatalf("the handler saw %q: the sink's context or the trace context did not reach it", got)
	}
	for _, e := range events.All() {
		if s := fmt.Sprintf("%+v", e); strings.Contains(s, "secret") {
			t.Fatalf("an event carries payload or principal: %s", s)
		}
	}
}

func TestInstrumentationOutcomes(t *testing.T) {
	rt, events, _ := instrumented(t, quietLogger())
	cases := []struct {
		name      string
		method    string
		params    map[string]any
		component string
		outcome   instrumentation.Outcome
		code      int64
	}{
		{"tool error", "tools/call", map[string]any{"name": "fails"}, "fails", instrumentation.OutcomeToolError, 0},
		{"unknown tool", "tools/call", map[string]any{"name": "made-up-name"}, "", instrumentation.OutcomeError, jsonrpc.CodeInvalidParams},
		{"input required", "tools/call", map[string]any{"name": "asks"}, "asks", instrumentation.OutcomeInputRequired, 0},
		{"template read", "resources/read", map[string]any{"uri": "notes://alice/42"}, "notes://{user}/{id}", instrumentation.OutcomeResult, 0},
		{"list", "tools/list", nil, "", instrumentation.OutcomeResult, 0},
	}
	for _, tc := range cases {
		events.Reset()
		call(t, rt, tc.method, tc.params)
		stops := testfixture.EventsOf[instrumentation.DispatchStop](events)
		if len(stops) != 1 {
			t.Fatalf("%s: events %+v", tc.name, events.All())
		}
		s := stops[0]
		if s.Component != tc.component || s.Outcome != tc.outcome || s.ErrorCode != tc.code {
			t.Errorf("%s: component %q outcome %v code %d; want %q %v %d", tc.name, s.Component, s.Outcome, s.ErrorCode, tc.component, tc.outcome, tc.code)
		}
	}
}

func TestInstrumentationException(t *testing.T) {
	rt, events, _ := instrumented(t, quietLogger())
	rpcError(t, call(t, rt, "tools/call", map[string]any{"name": "panics"}), jsonrpc.CodeInternalError)
	ex := testfixture.EventsOf[instrumentation.DispatchException](events)
	if len(ex) != 1 || len(testfixture.EventsOf[instrumentation.DispatchStop](events)) != 0 {
		t.Fatalf("want one exception and no stop: %+v", events.All())
	}
	if ex[0].Kind != "panic" || ex[0].PanicType != "string" || ex[0].Component != "panics" {
		t.Fatalf("exception: %+v", ex[0])
	}
	if strings.Contains(fmt.Sprintf("%+v", ex[0]), "secret-in-panic") {
		t.Fatal("the panic value reached the sink")
	}
}

func TestInstrumentationCancelled(t *testing.T) {
	rt, events, _ := instrumented(t, nil)
	msg, err := jsonrpc.Decode(testkit.Request(9, "tools/call", map[string]any{"name": "waits"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rt.Dispatch(ctx, &dispatch.Request{Message: msg})
	stops := testfixture.EventsOf[instrumentation.DispatchStop](events)
	if len(stops) != 1 || stops[0].Outcome != instrumentation.OutcomeCancelled {
		t.Fatalf("want a cancelled stop: %+v", events.All())
	}
}

func TestInstrumentationInvalidTraceContextIgnored(t *testing.T) {
	rt, events, seen := instrumented(t, nil)
	call(t, rt, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{"traceparent": "00-zz", "tracestate": "a=b"}})
	starts := testfixture.EventsOf[instrumentation.DispatchStart](events)
	if len(starts) != 1 || starts[0].Trace != (instrumentation.TraceContext{}) || (*seen)[1] != "" {
		t.Fatalf("an invalid traceparent was kept: %+v, handler saw %q", starts, *seen)
	}
}

// panickingSink panics in every method.
type panickingSink struct{ instrumentation.Nop }

func (panickingSink) DispatchStart(context.Context, instrumentation.DispatchStart) context.Context {
	panic("sink start")
}
func (panickingSink) DispatchStop(context.Context, instrumentation.DispatchStop) { panic("sink stop") }

func TestInstrumentationSinkPanicDoesNotBreakTheRequest(t *testing.T) {
	var logs bytes.Buffer
	rt := mustNew(t,
		dispatch.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		dispatch.WithInstrumentation(panickingSink{}),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("fine"), nil
		}))
	res := resultOf(t, call(t, rt, "tools/call", map[string]any{"name": "echo"}))
	b, _ := json.Marshal(res["content"])
	if !strings.Contains(string(b), "fine") {
		t.Fatalf("result: %s", b)
	}
	if !strings.Contains(logs.String(), "sink start") || !strings.Contains(logs.String(), "sink stop") {
		t.Fatalf("the sink's panics were not logged:\n%s", logs.String())
	}
}

func TestWithInstrumentationNil(t *testing.T) {
	if _, err := dispatch.New(testInfo, dispatch.WithInstrumentation(nil)); err == nil {
		t.Fatal("a nil sink was accepted")
	}
	if rt := mustNew(t); rt.Instrumentation() != nil {
		t.Fatal("a Runtime without the option has a sink")
	}
}

// BenchmarkInstrumentation compares a typed tools/call with no sink (the
// default) and with a sink that does nothing, to show what the events
// cost and that an uninstrumented Runtime pays nothing.
func BenchmarkInstrumentation(b *testing.B) {
	raw := benchRequest(b, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{"city": "Lisbon", "days": 3}})
	for _, bc := range []struct {
		name string
		opts []dispatch.Option
	}{
		{"none", nil},
		{"nop", []dispatch.Option{dispatch.WithInstrumentation(instrumentation.Nop{})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := append([]dispatch.Option{dispatch.WithTypedTool(mcp.Tool{Name: "weather"}, func(_ context.Context, in weatherIn) (weatherOut, error) {
				return weatherOut{City: in.City, Temperature: 20}, nil
			})}, bc.opts...)
			rt := mustNew(b, opts...)
			b.ReportAllocs()
			for b.Loop() {
				if out := rt.Dispatch(context.Background(), decodeRequest(b, raw)); out.ErrorCode != 0 {
					b.Fatalf("error %d", out.ErrorCode)
				}
			}
		})
	}
}

func TestHubEvents(t *testing.T) {
	events := &testfixture.Events{}
	hub := hub.New(hub.Options{MaxBuffer: 1, Sink: events})
	l := hub.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///secret-uri"}}, func() {})
	defer l.Close()
	hub.ToolsListChanged()
	hub.ToolsListChanged() // the buffer holds one: this drops the oldest
	hub.PromptsListChanged()
	subs := testfixture.EventsOf[instrumentation.SubscriptionEvent](events)
	type row struct {
		kind             instrumentation.SubscriptionEventKind
		topic            string
		matched, dropped int
	}
	var got []row
	for _, e := range subs {
		got = append(got, row{e.Kind, e.Topic, e.Matched, e.Dropped})
		if e.Open != 1 {
			t.Errorf("open %d, want 1", e.Open)
		}
	}
	want := []row{
		{instrumentation.SubscriptionPublished, "notifications/tools/list_changed", 1, 0},
		{instrumentation.SubscriptionPublished, "notifications/tools/list_changed", 1, 0},
		{instrumentation.SubscriptionOverflowed, "notifications/tools/list_changed", 0, 1},
		{instrumentation.SubscriptionPublished, "notifications/prompts/list_changed", 0, 0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hub events:\n got %v\nwant %v", got, want)
	}
	if _, err := hub.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: "file:///secret-uri"}); err != nil {
		t.Fatal(err)
	}
	// An extension's event is named by its method; its key never reaches
	// the sink.
	if _, err := hub.Publish(dispatch.Event{Kind: dispatch.EventExtension, Member: "taskIds", Key: "secret-key",
		Method: "notifications/tasks", Params: json.RawMessage(`{"taskId":"secret-key"}`)}); err != nil {
		t.Fatal(err)
	}
	subs = testfixture.EventsOf[instrumentation.SubscriptionEvent](events)
	if last := subs[len(subs)-1]; last.Topic != "notifications/tasks" {
		t.Fatalf("extension event topic %q", last.Topic)
	}
	for _, e := range events.All() {
		if strings.Contains(fmt.Sprintf("%+v", e), "secret-uri") || strings.Contains(fmt.Sprintf("%+v", e), "secret-key") {
			t.Fatalf("a resource URI or an extension key reached the sink: %+v", e)
		}
	}
}

// The trace context comes from _meta when it carries a valid traceparent,
// else from the HTTP traceparent and tracestate headers; a malformed one
// anywhere is ignored.
func TestTraceContextFromHeaders(t *testing.T) {
	const headerParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	cases := []struct {
		name   string
		meta   map[string]any
		header []string // traceparent header lines; nil: not over HTTP
		want   instrumentation.TraceContext
	}{
		{"header only", nil, []string{headerParent}, instrumentation.TraceContext{TraceParent: headerParent, TraceState: "congo=2", FromHeader: true}},
		{"meta only", map[string]any{"traceparent": traceparent, "tracestate": "rojo=1"}, nil, instrumentation.TraceContext{TraceParent: traceparent, TraceState: "rojo=1"}},
		{"both: meta wins", map[string]any{"traceparent": traceparent, "tracestate": "rojo=1"}, []string{headerParent}, instrumentation.TraceContext{TraceParent: traceparent, TraceState: "rojo=1"}},
		{"malformed header", nil, []string{"00-" + headerParent[3:35] + "-zz"}, instrumentation.TraceContext{}},
		{"repeated header", nil, []string{headerParent, traceparent}, instrumentation.TraceContext{}},
		{"malformed meta, valid header", map[string]any{"traceparent": "not-a-traceparent", "tracestate": "rojo=1"}, []string{headerParent},
			instrumentation.TraceContext{TraceParent: headerParent, TraceState: "congo=2", FromHeader: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt, events, seen := instrumented(t, nil)
			params := map[string]any{"name": "echo", "arguments": map[string]any{}}
			if c.meta != nil {
				params["_meta"] = c.meta
			}
			var setup func(*dispatch.Request)
			if c.header != nil {
				setup = func(r *dispatch.Request) {
					h := testfixture.HTTPHeaders(testkit.Request(1, "tools/call", params))
					h["Traceparent"], h["Tracestate"] = c.header, []string{"congo=2"}
					r.Transport, r.Header = dispatch.TransportHTTP, h
				}
			}
			resultOf(t, callWith(t, rt, "tools/call", params, setup))
			starts := testfixture.EventsOf[instrumentation.DispatchStart](events)
			if len(starts) != 1 || starts[0].Trace != c.want {
				t.Fatalf("trace in the event: %+v, want %+v", starts, c.want)
			}
			if got := (*seen)[1]; got != c.want.TraceParent {
				t.Fatalf("the handler's RequestInfo.TraceContext: %q, want %q", got, c.want.TraceParent)
			}
		})
	}
}
