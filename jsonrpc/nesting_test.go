package jsonrpc

import (
	"strings"
	"testing"
)

// Nesting past the bound is refused where it crosses the bound: the
// scanner reads one byte past 128 open brackets and no further, keeps no
// stack (depth is a counter), and Decode allocates only its error,
// whatever the input's length.
func TestDeepNestingStopsAtTheBound(t *testing.T) {
	prefix := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":`
	for _, tc := range []struct {
		name  string
		inner string
	}{
		{"arrays", strings.Repeat("[", 1_900_000)},
		{"objects", strings.Repeat(`{"a":`, 380_000)},
		{"mixed", strings.Repeat(`[{"a":`, 300_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(prefix + tc.inner)
			s := scanner{data: data}
			if s.value() || s.err != scanDepth {
				t.Fatalf("scan: ok=%t err=%v, want the depth bound", s.err == scanOK, s.err)
			}
			// The bound is crossed by the 129th opening bracket; nothing
			// after it is read.
			opened := strings.Count(string(data[:s.pos+1]), "[") + strings.Count(string(data[:s.pos+1]), "{")
			if opened != MaxDepth+1 {
				t.Fatalf("stopped after %d opening brackets, want %d", opened, MaxDepth+1)
			}
			if s.pos > len(prefix)+len(tc.inner)/1000 {
				t.Fatalf("scanned %d of %d bytes", s.pos, len(data))
			}
			allocs := testing.AllocsPerRun(5, func() {
				if _, err := Decode(data); err == nil {
					t.Fatal("accepted")
				}
			})
			if allocs > 3 {
				t.Fatalf("Decode allocated %.0f times for a refused %d-byte message", allocs, len(data))
			}
			de := decodeErr(t, string(data))
			if de.Err.Code != CodeParseError || !de.Reply || !de.ID.IsNull() || de.Err.Message != scanDepth.message() {
				t.Fatalf("got %+v", de)
			}
		})
	}
}
