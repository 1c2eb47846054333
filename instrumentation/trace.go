package instrumentation

// The W3C trace context a request carries in its _meta or its HTTP
// headers.

// TraceContext is a W3C Trace Context (https://www.w3.org/TR/trace-context/)
// as a request carried it: in its _meta ("traceparent" and "tracestate"),
// or, when its _meta carries no valid traceparent, in the HTTP request's
// traceparent and tracestate headers. The zero value means the request
// carried none, or one that was not valid: an invalid traceparent is
// ignored, as the W3C rules ask, and so is a tracestate without a valid
// traceparent.
type TraceContext struct {
	// TraceParent is the validated traceparent, such as
	// "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".
	TraceParent string
	// TraceState is the vendor state that came with it, at most 512
	// printable ASCII characters; "" otherwise.
	TraceState string
	// FromHeader reports that the context came from the HTTP headers
	// rather than from _meta.
	FromHeader bool
}

// IsValid reports whether t holds a traceparent.
func (t TraceContext) IsValid() bool { return t.TraceParent != "" }
