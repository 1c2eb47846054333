// Package instrumentation is snodo's event interface: a small [Sink] the
// application sets once (with dispatch.WithInstrumentation on the Runtime,
// whose supervision tree inherits it, and hub.Options.Sink on a
// subscription hub) and that then hears about every admitted call, every
// executor decision, every subscription stream and every request a
// transport refused before the core saw it ([RefusalEvent]).
//
// It has no dependencies beyond the standard library, so the core imports
// it freely; adapters to tracing and metrics systems live elsewhere (the
// OpenTelemetry one is package instrumentation/otel).
//
// Three rules shape it:
//
//   - Events never carry payloads or credentials: no arguments, results,
//     resource contents, principals, client-supplied names that were not
//     registered, or panic values. They carry methods, registered component
//     names, durations, outcomes, codes and counts.
//   - A sink cannot break a request: every call into it is made through
//     a guard, which recovers a panic, reports it through the logger (the
//     first few times) and carries on as if the sink had returned.
//   - Without a sink nothing is computed: the emitting code checks for a
//     nil sink before it builds an event, so an uninstrumented server pays
//     one comparison per event site.
//
// Sinks are called synchronously on the goroutine where the event happens
// (a worker, a reader, a timer), so they must be fast and must not block.
//
// A request's W3C trace context (traceparent and tracestate in its
// _meta, or else in its HTTP headers) arrives as a [TraceContext] in
// [Call], and handlers read it with
// dispatch's RequestInfo.TraceContext.
package instrumentation
