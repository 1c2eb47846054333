package otel

// The sink that turns events into OpenTelemetry spans and metrics, and
// the options of New.

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	otelglobal "go.opentelemetry.io/otel"

	"github.com/snodo-go/snodo/instrumentation"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/snodo-go/snodo"

// Attribute keys.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyErrorType       = attribute.Key("error.type")
	keyErrorCode       = attribute.Key("rpc.jsonrpc.error_code")
	keyTransport       = attribute.Key("network.transport")
	keyReason          = attribute.Key("snodo.rejection.reason")
	keyStatus          = attribute.Key("snodo.job.status")
	keyEvent           = attribute.Key("snodo.subscription.event")
	keyPanicType       = attribute.Key("snodo.panic.type")
	keyRefusal         = attribute.Key("snodo.refusal.reason")
	keyHTTPStatus      = attribute.Key("http.response.status_code")
	keyPolicy          = attribute.Key("snodo.policy")
	keyPolicyDecision  = attribute.Key("snodo.policy.decision")
	keyComponent       = attribute.Key("snodo.component")
)

type config struct {
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	propagator propagation.TextMapPropagator
}

// Option configures [New]. An invalid option makes New fail, naming the
// option.
type Option interface {
	applyOtel(*config) error
}

type option struct {
	name  string
	apply func(*config) error
}

func (o option) applyOtel(c *config) error {
	if err := o.apply(c); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// WithTracerProvider sets where spans go. Default: the global provider
// (otel.GetTracerProvider) at the time New is called.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return option{"WithTracerProvider", func(c *config) error {
		if tp == nil {
			return errors.New("nil TracerProvider")
		}
		c.tp = tp
		return nil
	}}
}

// WithMeterProvider sets where metrics go. Default: the global provider
// (otel.GetMeterProvider) at the time New is called.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return option{"WithMeterProvider", func(c *config) error {
		if mp == nil {
			return errors.New("nil MeterProvider")
		}
		c.mp = mp
		return nil
	}}
}

// WithPropagator sets how the request's _meta trace context is read.
// Default: W3C Trace Context (propagation.TraceContext).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return option{"WithPropagator", func(c *config) error {
		if p == nil {
			return errors.New("nil TextMapPropagator")
		}
		c.propagator = p
		return nil
	}}
}

// sink records OpenTelemetry spans and metrics. It is safe for
// concurrent use.
type sink struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	duration      metric.Float64Histogram
	running       metric.Int64Gauge
	queueDepth    metric.Int64Gauge
	queueWait     metric.Float64Histogram
	rejections    metric.Int64Counter
	jobs          metric.Int64Counter
	subsOpen      metric.Int64Gauge
	subscriptions metric.Int64Counter
	refusals      metric.Int64Counter
	policy        metric.Int64Counter
	policyWait    metric.Float64Histogram
}

// New returns an instrumentation.Sink that records OpenTelemetry spans
// and metrics to the configured providers. It is safe for concurrent use.
func New(opts ...Option) (instrumentation.Sink, error) {
	c := config{propagator: propagation.TraceContext{}}
	for _, o := range opts {
		if err := o.applyOtel(&c); err != nil {
			return nil, fmt.Errorf("otel: %w", err)
		}
	}
	if c.tp == nil {
		c.tp = otelglobal.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otelglobal.GetMeterProvider()
	}
	m := c.mp.Meter(ScopeName)
	s := &sink{tracer: c.tp.Tracer(ScopeName), propagator: c.propagator}
	var err error
	// Buckets suited to request latencies, 1 ms to 5 min.
	buckets := metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
	if s.duration, err = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests served."), buckets); err != nil {
		return nil, err
	}
	if s.running, err = m.Int64Gauge("snodo.executor.running", metric.WithUnit("{job}"),
		metric.WithDescription("Jobs holding an execution slot.")); err != nil {
		return nil, err
	}
	if s.queueDepth, err = m.Int64Gauge("snodo.executor.queue.depth", metric.WithUnit("{job}"),
		metric.WithDescription("Jobs waiting for an execution slot.")); err != nil {
		return nil, err
	}
	if s.queueWait, err = m.Float64Histogram("snodo.executor.queue.wait", metric.WithUnit("s"),
		metric.WithDescription("Time jobs waited for an execution slot."), buckets); err != nil {
		return nil, err
	}
	if s.rejections, err = m.Int64Counter("snodo.executor.rejections", metric.WithUnit("{job}"),
		metric.WithDescription("Jobs and subscriptions refused by the executor.")); err != nil {
		return nil, err
	}
	if s.jobs, err = m.Int64Counter("snodo.executor.jobs", metric.WithUnit("{job}"),
		metric.WithDescription("Jobs finished, by how they ended.")); err != nil {
		return nil, err
	}
	if s.subsOpen, err = m.Int64Gauge("snodo.subscriptions.open", metric.WithUnit("{subscription}"),
		metric.WithDescription("Subscription streams open.")); err != nil {
		return nil, err
	}
	if s.subscriptions, err = m.Int64Counter("snodo.subscription.events", metric.WithUnit("{event}"),
		metric.WithDescription("Subscription events published and dropped.")); err != nil {
		return nil, err
	}
	if s.refusals, err = m.Int64Counter("snodo.transport.refusals", metric.WithUnit("{request}"),
		metric.WithDescription("Requests a transport refused before the core saw them, by reason.")); err != nil {
		return nil, err
	}
	if s.policy, err = m.Int64Counter("snodo.policy.decisions", metric.WithUnit("{call}"),
		metric.WithDescription("Component policy decisions, by policy, decision and component.")); err != nil {
		return nil, err
	}
	if s.policyWait, err = m.Float64Histogram("snodo.policy.wait", metric.WithUnit("s"),
		metric.WithDescription("Time calls waited for a place under a component's concurrency limit."), buckets); err != nil {
		return nil, err
	}
	return s, nil
}

// callAttrs are the attributes of a call shared by its span and its
// duration.
func callAttrs(c instrumentation.Call) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, keyMethod.String(c.Method), keyProtocolVersion.String(c.ProtocolVersion))
	if c.Component != "" {
		switch c.Method {
		case "tools/call":
			attrs = append(attrs, keyToolName.String(c.Component))
		case "prompts/get":
			attrs = append(attrs, keyPromptName.String(c.Component))
		case "resources/read":
			attrs = append(attrs, keyResourceURI.String(c.Component))
		}
	}
	switch c.Transport {
	case "stdio":
		attrs = append(attrs, keyTransport.String("pipe"))
	case "http":
		attrs = append(attrs, keyTransport.String("tcp"))
	}
	return attrs
}

func spanName(c instrumentation.Call) string {
	if c.Component != "" {
		return c.Method + " " + c.Component
	}
	return c.Method
}

// DispatchStart starts the call's span.
func (s *sink) DispatchStart(ctx context.Context, e instrumentation.DispatchStart) context.Context {
	// _meta's trace context names the parent; one from the HTTP headers
	// only when no span is in the context already (an HTTP middleware's
	// span is itself a child of those headers).
	if e.Trace.IsValid() && (!e.Trace.FromHeader || !trace.SpanContextFromContext(ctx).IsValid()) { // mutation: otel-header-trace-is-a-parent
		carrier := propagation.MapCarrier{"traceparent": e.Trace.TraceParent}
		if e.Trace.TraceState != "" {
			carrier["tracestate"] = e.Trace.TraceState
		}
		ctx = s.propagator.Extract(ctx, carrier)
	}
	attrs := append(callAttrs(e.Call), keyRequestID.String(e.RequestID))
	ctx, _ = s.tracer.Start(ctx, spanName(e.Call),
		trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(e.Time), trace.WithAttributes(attrs...))
	return ctx
}

// DispatchStop ends the call's span and records its duration.
func (s *sink) DispatchStop(ctx context.Context, e instrumentation.DispatchStop) {
	span := trace.SpanFromContext(ctx)
	var errType string
	switch e.Outcome {
	case instrumentation.OutcomeError:
		errType = strconv.FormatInt(e.ErrorCode, 10)
		span.SetAttributes(keyErrorCode.Int64(e.ErrorCode))
		span.SetStatus(codes.Error, "JSON-RPC error "+errType)
	case instrumentation.OutcomeToolError:
		errType = "tool_error"
		span.SetStatus(codes.Error, "tool returned isError")
	case instrumentation.OutcomeCancelled:
		errType = "cancelled"
	}
	attrs := callAttrs(e.Call)
	if errType != "" {
		span.SetAttributes(keyErrorType.String(errType))
		attrs = append(attrs, keyErrorType.String(errType))
	}
	span.End()
	s.duration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(attrs...))
}

// DispatchException ends the call's span as failed by a panic.
func (s *sink) DispatchException(ctx context.Context, e instrumentation.DispatchException) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(keyErrorType.String(e.Kind), keyPanicType.String(e.PanicType))
	span.SetStatus(codes.Error, "application code panicked")
	span.End()
	attrs := append(callAttrs(e.Call), keyErrorType.String(e.Kind))
	s.duration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(attrs...))
}

// Executor records the executor's gauges and counters.
func (s *sink) Executor(e instrumentation.ExecutorEvent) {
	ctx := context.Background()
	s.running.Record(ctx, int64(e.Running))
	s.queueDepth.Record(ctx, int64(e.QueueDepth))
	switch e.Kind {
	case instrumentation.ExecutorRejected:
		s.rejections.Add(ctx, 1, metric.WithAttributes(keyReason.String(e.Reason)))
	case instrumentation.ExecutorStarted:
		s.queueWait.Record(ctx, e.Wait.Seconds())
	case instrumentation.ExecutorFinished:
		s.jobs.Add(ctx, 1, metric.WithAttributes(keyStatus.String(e.Status)))
	}
}

// Subscription records subscription gauges and counters.
func (s *sink) Subscription(e instrumentation.SubscriptionEvent) {
	ctx := context.Background()
	switch e.Kind {
	case instrumentation.SubscriptionOpened, instrumentation.SubscriptionClosed:
		s.subsOpen.Record(ctx, int64(e.Open))
	case instrumentation.SubscriptionPublished:
		s.subscriptions.Add(ctx, 1, metric.WithAttributes(keyEvent.String("published")))
	case instrumentation.SubscriptionOverflowed:
		n := int64(e.Dropped)
		if n < 1 {
			n = 1
		}
		s.subscriptions.Add(ctx, n, metric.WithAttributes(keyEvent.String("dropped")))
	}
}

// Refusal counts a transport's refusal by transport, reason and HTTP
// status.
func (s *sink) Refusal(e instrumentation.RefusalEvent) {
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, keyRefusal.String(string(e.Reason)))
	switch e.Transport {
	case "stdio":
		attrs = append(attrs, keyTransport.String("pipe"))
	case "http":
		attrs = append(attrs, keyTransport.String("tcp"))
	}
	if e.Status != 0 {
		attrs = append(attrs, keyHTTPStatus.Int(e.Status))
	}
	s.refusals.Add(context.Background(), 1, metric.WithAttributes(attrs...))
}

// Policy counts component policy decisions and records waits.
func (s *sink) Policy(e instrumentation.PolicyEvent) {
	ctx := context.Background()
	decision := string(e.Kind)
	if e.Kind == instrumentation.PolicyRefused {
		decision = "refused_" + e.Reason
	}
	s.policy.Add(ctx, 1, metric.WithAttributes(keyPolicy.String(e.Policy), keyPolicyDecision.String(decision),
		keyMethod.String(e.Method), keyComponent.String(e.Component)))
	if e.Kind == instrumentation.PolicyAdmitted && e.Wait > 0 {
		s.policyWait.Record(ctx, e.Wait.Seconds(), metric.WithAttributes(keyMethod.String(e.Method), keyComponent.String(e.Component)))
	}
}
