package jsonrpc

import (
	"strings"
	"testing"
)

// Nesting past the bound is a parse error, and Decode allocates only its
// error, whatever the input's length (where the scanner stops is checked
// in internal/jsonwire).
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
			allocs := testing.AllocsPerRun(5, func() {
				if _, err := Decode(data); err == nil {
					t.Fatal("accepted")
				}
			})
			if allocs > 3 {
				t.Fatalf("Decode allocated %.0f times for a refused %d-byte message", allocs, len(data))
			}
			de := decodeErr(t, string(data))
			if de.Err.Code != CodeParseError || !de.Reply || !de.ID.isNull() || de.Err.Message != "Parse error: nesting is too deep" {
				t.Fatalf("got %+v", de)
			}
		})
	}
}
