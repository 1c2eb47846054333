package tracectx

import (
	"strings"
	"testing"
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
