package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// longestDigitRun returns the longest run of ASCII digits in b (inside or
// outside strings: an over-approximation used only to skip inputs).
func longestDigitRun(b []byte) int {
	best, run := 0, 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func maxNesting(b []byte) int {
	depth, best := 0, 0
	for _, c := range b {
		switch c {
		case '[', '{':
			depth++
			best = max(best, depth)
		case ']', '}':
			depth--
		}
	}
	return best
}

// tokenBounds walks valid JSON with encoding/json (an independent parser)
// and returns its real nesting depth and the longest digit run of any
// number literal (integer part, fraction or exponent).
func tokenBounds(data []byte) (depth, digits int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	level := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return depth, digits
		}
		if err != nil {
			return depth, digits // not reached for valid JSON
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				level++
				depth = max(depth, level)
			} else {
				level--
			}
		case json.Number:
			digits = max(digits, longestDigitRun([]byte(v)))
		}
	}
}

// FuzzDecode checks that Decode never panics, that whatever it accepts is
// valid JSON within the bounds, and that accepted ids and rejected inputs
// obey the rules, whatever the input.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"server/discover","params":{"_meta":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + strings.Repeat("9", 65) + `}}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 257) + `","method":"m"}`,
		`{"a":` + strings.Repeat("[", 130) + strings.Repeat("]", 130) + `}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"m"} trailing`,
		`{"\u006aSonrpc":"2.0","id":-0,"method":"\ud83d\ude00"}`,
		``, `null`, `{}`, `{"id":null}`,
		// Bounds exactly at and one past each limit.
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":-` + strings.Repeat("9", 64) + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":1.` + strings.Repeat("0", 65) + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":1e-` + strings.Repeat("1", 65) + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat(`{"a":`, 127) + `1` + strings.Repeat("}", 127) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat(`[`, 128) + strings.Repeat("]", 128) + `}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}`,
		`{"jsonrpc":"2.0","id":-9223372036854775809,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"m"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("\\u00e9", 128) + `","method":"m"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("\\u00e9", 129) + `","method":"m"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("\\u0041", 256) + `","method":"m"}`,
		// Invalid UTF-8 in a key, a value, and outside any string.
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"\xc3\":1}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"\xed\xa0\x80\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\xff",
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		// What an independent parser says the bounds require.
		overBound := !utf8.Valid(data)
		if json.Valid(data) {
			depth, digits := tokenBounds(data)
			overBound = overBound || depth > jsonwire.MaxDepth || digits > jsonwire.MaxNumberDigits
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Err == nil {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if de.Reply && de.ID.IsValid() && de.Err.Code == CodeParseError {
				t.Fatal("a parse error carries an id")
			}
			if !jsonwire.Valid(data) && de.Err.Code != CodeParseError {
				t.Fatalf("invalid input answered with %d, want -32700", de.Err.Code)
			}
			if overBound && (de.Err.Code != CodeParseError || !de.Reply) {
				t.Fatalf("input over a bound answered with %d (reply=%t), want -32700", de.Err.Code, de.Reply)
			}
			if s, ok := de.ID.Str(); ok && len(s) > 256 {
				t.Fatalf("an error echoes a %d-byte id", len(s))
			}
			return
		}
		if overBound {
			t.Fatalf("accepted input over a bound (UTF-8, depth or digits): %q", data)
		}
		// Accepted: valid JSON, within every bound.
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if !utf8.Valid(data) {
			t.Fatalf("accepted invalid UTF-8 %q", data)
		}
		if m.Kind == KindRequest {
			if !m.ID.IsValid() {
				t.Fatal("a request without a valid id")
			}
			if s, ok := m.ID.Str(); ok && len(s) > 256 {
				t.Fatalf("accepted a %d-byte id", len(s))
			}
		}
		if m.Kind != KindResponse && m.Params != nil && m.Params[0] != '{' {
			t.Fatalf("params %q are not an object", m.Params)
		}
		// The id round-trips through the encoder.
		if m.ID.IsValid() {
			var back ID
			if err := back.UnmarshalJSON(m.ID.AppendJSON(nil)); err != nil || back != m.ID {
				t.Fatalf("id %s does not round-trip: %v", m.ID, err)
			}
		}
	})
}

// FuzzValid checks the scanner against encoding/json on every input within
// the bounds, and that inputs over a bound are refused.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2.5e-3,"x",true,null]`, `{"a":{"b":[]}}`, `01`, `1.`, `"\u12"`, `[1]]`, "\"\t\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := jsonwire.Valid(data)
		if longestDigitRun(data) > jsonwire.MaxNumberDigits && got {
			// Only possible when the run is inside a string.
			if !strings.Contains(string(data), `"`) {
				t.Fatalf("accepted a number over the digit bound: %q", data)
			}
		}
		if !utf8.Valid(data) || maxNesting(data) > jsonwire.MaxDepth || longestDigitRun(data) > jsonwire.MaxNumberDigits {
			if got && !json.Valid(data) {
				t.Fatalf("Valid accepted %q, which encoding/json refuses", data)
			}
			return
		}
		if want := json.Valid(data); got != want {
			t.Fatalf("jsonwire.Valid(%q) = %t, encoding/json says %t", data, got, want)
		}
	})
}
