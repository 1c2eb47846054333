// Package otel adapts snodo's instrumentation events to OpenTelemetry
// traces and metrics (go.opentelemetry.io/otel). Nothing in the core
// imports it: an application that wants OpenTelemetry imports this
// package and hands its Sink to the Runtime, whose supervision tree
// inherits it.
//
//	sink, err := otel.New(otel.WithTracerProvider(tp), otel.WithMeterProvider(mp))
//	rt, err := dispatch.New(info, dispatch.WithInstrumentation(sink), ...)
//	sup, err := supervisor.New(rt) // the executor's events go to sink too
//
// Each admitted call is a server span named "{method} {component}" (for
// example "tools/call get_weather"), a child of the W3C trace context the
// request carried in its _meta; when it carried none, of the span already
// in the context (an HTTP middleware's), or else of the trace context in
// the HTTP request's traceparent and tracestate headers. The span's context is the
// handler's context, so spans the handler starts nest under it. Span and
// metric attributes follow the OpenTelemetry conventions for MCP where
// they exist (mcp.method.name, mcp.protocol.version, jsonrpc.request.id,
// gen_ai.tool.name, gen_ai.prompt.name, mcp.resource.uri, error.type).
//
// Metrics:
//
//	mcp.server.operation.duration  histogram, s   per call: method, component, error.type
//	snodo.executor.running         gauge          jobs holding a slot
//	snodo.executor.queue.depth     gauge          jobs waiting for one
//	snodo.executor.queue.wait      histogram, s   time a job waited for a slot
//	snodo.executor.rejections      counter        by snodo.rejection.reason
//	snodo.executor.jobs            counter        finished jobs by snodo.job.status
//	snodo.subscriptions.open       gauge          subscription slots taken
//	snodo.subscription.events      counter        published and overflowed events (dropped ones counted)
//	snodo.transport.refusals       counter        by snodo.refusal.reason, network.transport, http.response.status_code
//
// The versions: this package needs go.opentelemetry.io/otel v1.47.0 or
// later (see ARCHITECTURE.md, Dependencies).
package otel
