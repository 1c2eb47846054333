// Package tracectx reads a W3C Trace Context (https://www.w3.org/TR/trace-context/)
// from the traceparent and tracestate a request carried in its _meta or
// its HTTP headers, for dispatch's RequestInfo.TraceContext and the
// dispatch events.
package tracectx

import (
	"strings"

	"github.com/snodo-go/snodo/instrumentation"
)

// MaxStateLen bounds the tracestate kept: the W3C rules require carriers
// to propagate at least 512 characters and allow them to drop longer
// values.
const MaxStateLen = 512

// New validates a traceparent and tracestate pair and returns the
// TraceContext to propagate; invalid parts are dropped.
func New(traceparent, tracestate string) instrumentation.TraceContext {
	if _, _, _, ok := Parse(traceparent); !ok {
		return instrumentation.TraceContext{}
	}
	t := instrumentation.TraceContext{TraceParent: traceparent}
	if validTraceState(tracestate) {
		t.TraceState = tracestate
	}
	return t
}

// The canonical (net/http) keys of the W3C Trace Context headers.
const (
	HeaderTraceParent = "Traceparent"
	HeaderTraceState  = "Tracestate"
)

// FromHeader returns the TraceContext of an HTTP request's headers
// (keyed in canonical form), marked FromHeader; the zero value when they
// carry no valid traceparent. A repeated traceparent header is invalid
// (the request names no single parent); repeated tracestate headers are
// one list, joined with commas as RFC 9110 joins field lines.
func FromHeader(h map[string][]string) instrumentation.TraceContext {
	parents := h[HeaderTraceParent]
	if len(parents) != 1 {
		return instrumentation.TraceContext{}
	}
	var state string
	switch states := h[HeaderTraceState]; len(states) {
	case 0:
	case 1:
		state = states[0]
	default:
		state = strings.Join(states, ",")
	}
	t := New(strings.TrimSpace(parents[0]), strings.TrimSpace(state))
	t.FromHeader = t.IsValid()
	return t
}

// Parse parses a W3C traceparent: version, trace id, parent
// (span) id and flags, in lowercase hex separated by dashes. It accepts
// version 00 exactly and, as the rules ask, later versions with the same
// prefix and more fields after a dash; version ff, all-zero ids and
// upper-case hex are invalid.
func Parse(s string) (traceID [16]byte, spanID [8]byte, flags byte, ok bool) {
	const n = 55 // 2+1+32+1+16+1+2
	if len(s) < n || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return traceID, spanID, 0, false
	}
	var version [1]byte
	if !hexInto(version[:], s[0:2]) || version[0] == 0xff {
		return traceID, spanID, 0, false
	}
	if version[0] == 0 && len(s) != n || version[0] != 0 && len(s) > n && s[n] != '-' {
		return traceID, spanID, 0, false
	}
	var fl [1]byte
	if !hexInto(traceID[:], s[3:35]) || !hexInto(spanID[:], s[36:52]) || !hexInto(fl[:], s[53:55]) {
		return traceID, spanID, 0, false
	}
	if traceID == [16]byte{} || spanID == [8]byte{} {
		return traceID, spanID, 0, false
	}
	return traceID, spanID, fl[0], true
}

// hexInto decodes lowercase hex into dst; len(src) must be 2*len(dst).
func hexInto(dst []byte, src string) bool {
	for i := range dst {
		hi, ok1 := nibble(src[2*i])
		lo, ok2 := nibble(src[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func nibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// validTraceState keeps a tracestate that is short and plain enough to
// propagate as is; its list members are the vendors' business.
func validTraceState(s string) bool {
	if s == "" || len(s) > MaxStateLen || strings.TrimSpace(s) == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
