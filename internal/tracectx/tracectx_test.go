package tracectx

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
)

const validParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestParseTraceParent(t *testing.T) {
	trace, span, flags, ok := Parse(validParent)
	if !ok || trace[0] != 0x4b || trace[15] != 0x36 || span[0] != 0x00 || span[7] != 0xb7 || flags != 1 {
		t.Fatalf("parse of a valid traceparent: %x %x %x %v", trace, span, flags, ok)
	}
	cases := map[string]bool{
		validParent: true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": true,  // a later version may add fields
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01xextra": false, // but only after a dash
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": false, // version 00 is exact
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       false,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":       false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01":        false,
		"00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01":       false,
		"":                      false,
		strings.Repeat("0", 55): false,
		"zz-" + validParent[3:]: false,
		validParent[:53] + "0g": false,
	}
	for in, want := range cases {
		if _, _, _, ok := Parse(in); ok != want {
			t.Errorf("Parse(%q) ok = %v, want %v", in, ok, want)
		}
	}
}

func TestNewTraceContext(t *testing.T) {
	tc := New(validParent, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
	if !tc.IsValid() || tc.TraceState != "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" {
		t.Fatalf("valid pair: %+v", tc)
	}
	if tc := New("nope", "rojo=1"); tc.IsValid() || tc.TraceState != "" {
		t.Fatalf("an invalid traceparent kept something: %+v", tc)
	}
	long := strings.Repeat("a", MaxStateLen+1)
	if tc := New(validParent, long); !tc.IsValid() || tc.TraceState != "" {
		t.Fatalf("an over-long tracestate was kept: %+v", tc)
	}
	if tc := New(validParent, "a=\u00e9"); tc.TraceState != "" {
		t.Fatalf("a non-ASCII tracestate was kept: %+v", tc)
	}
}

func TestFromHeader(t *testing.T) {
	const other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	cases := []struct {
		name string
		h    map[string][]string
		want instrumentation.TraceContext
	}{
		{"none", nil, instrumentation.TraceContext{}},
		{"parent", map[string][]string{HeaderTraceParent: {validParent}}, instrumentation.TraceContext{TraceParent: validParent, FromHeader: true}},
		{"parent and state", map[string][]string{HeaderTraceParent: {validParent}, HeaderTraceState: {"rojo=1"}},
			instrumentation.TraceContext{TraceParent: validParent, TraceState: "rojo=1", FromHeader: true}},
		{"state lines are one list", map[string][]string{HeaderTraceParent: {validParent}, HeaderTraceState: {"rojo=1", "congo=2"}},
			instrumentation.TraceContext{TraceParent: validParent, TraceState: "rojo=1,congo=2", FromHeader: true}},
		{"malformed parent", map[string][]string{HeaderTraceParent: {"00-xyz"}, HeaderTraceState: {"rojo=1"}}, instrumentation.TraceContext{}},
		{"repeated parent", map[string][]string{HeaderTraceParent: {validParent, other}}, instrumentation.TraceContext{}},
		{"state alone", map[string][]string{HeaderTraceState: {"rojo=1"}}, instrumentation.TraceContext{}},
		{"state too long", map[string][]string{HeaderTraceParent: {validParent}, HeaderTraceState: {strings.Repeat("a", MaxStateLen+1)}},
			instrumentation.TraceContext{TraceParent: validParent, FromHeader: true}},
	}
	for _, c := range cases {
		if got := FromHeader(c.h); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
