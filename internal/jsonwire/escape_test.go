package jsonwire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEscapeNonASCII(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"plain"`, `"plain"`},
		{`"héllo"`, `"h\u00e9llo"`},
		{`"日本"`, `"\u65e5\u672c"`},
		{`"😀"`, `"\ud83d\ude00"`},                  // above U+FFFF: a surrogate pair
		{"\"a\u2028b\"", `"a\u2028b"`},             // line separator
		{"\"bad \xff byte\"", `"bad \ufffd byte"`}, // invalid UTF-8
	} {
		got := string(EscapeNonASCII([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("EscapeNonASCII(%q) = %s, want %s", tc.in, got, tc.want)
		}
		var s1, s2 string
		if json.Unmarshal([]byte(tc.in), &s1) == nil && json.Unmarshal([]byte(got), &s2) == nil && s1 != s2 {
			t.Errorf("escaping changed the value: %q vs %q", s1, s2)
		}
	}
	in := []byte(`"ascii only"`)
	if out := EscapeNonASCII(in); &out[0] != &in[0] {
		t.Error("ASCII input was copied")
	}
}

func TestAppendStringIsASCIIAndRoundTrips(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c", "tab\there\nnew", "\x00\x1f\x7f", "é😀日", "</script>"} {
		b := AppendString(nil, s)
		for _, c := range b {
			if c >= 0x80 {
				t.Fatalf("AppendString(%q) has non-ASCII byte: %s", s, b)
			}
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Fatalf("AppendString(%q) = %s does not round-trip (%q, %v)", s, b, back, err)
		}
	}
}

// Raw JSON passed through with line breaks must not split a stdio frame.
func TestMarshalNeverEmitsLineBreaks(t *testing.T) {
	v := map[string]any{
		"schema": json.RawMessage("{\n  \"type\": \"object\",\r\n  \"description\": \"line\\nbreak\"\n}"),
		"text":   "a\nb",
	}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b {
		if c == '\n' || c == '\r' {
			t.Fatalf("frame has a raw line break: %q", b)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["text"] != "a\nb" || back["schema"].(map[string]any)["description"] != "line\nbreak" {
		t.Fatalf("values changed: %s (%v)", b, err)
	}
}

// Escaping sizes its output once for valid UTF-8.
func TestEscapeNonASCIIAllocatesOnce(t *testing.T) {
	in := []byte(`"` + strings.Repeat("日本語😀é", 200) + `"`)
	allocs := testing.AllocsPerRun(20, func() { _ = EscapeNonASCII(in) })
	if allocs != 1 {
		t.Fatalf("EscapeNonASCII allocated %v times, want 1", allocs)
	}
}
