// This file tests the table of shared strings: same results as Unquote, no
// allocation for a recurring string, and its bounds.

package jsonwire

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnquoteInternedAgreesWithUnquote(t *testing.T) {
	for _, raw := range []string{
		`"tools/call"`, `""`, `"caf\u00e9"`, `"a\"b"`, `"` + strings.Repeat("x", 100) + `"`,
		`"unterminated`, `x`, `"`, `"\u12"`,
	} {
		s1, ok1 := Unquote([]byte(raw))
		s2, ok2 := UnquoteInterned([]byte(raw))
		if s1 != s2 || ok1 != ok2 {
			t.Errorf("%s: Unquote %q %v, UnquoteInterned %q %v", raw, s1, ok1, s2, ok2)
		}
	}
}

func TestUnquoteInternedAllocatesOnceForARecurringString(t *testing.T) {
	raw := []byte(`"intern/test-method"`)
	UnquoteInterned(raw)
	if n := testing.AllocsPerRun(100, func() {
		if s, _ := UnquoteInterned(raw); s != "intern/test-method" {
			t.Fatalf("got %q", s)
		}
	}); n != 0 {
		t.Errorf("a recurring string allocates %v times per decode, want 0", n)
	}
}

func TestUnquoteInternedIsBounded(t *testing.T) {
	for i := range 2 * internEntries {
		raw := fmt.Appendf(nil, `"bound/%d"`, i)
		if s, ok := UnquoteInterned(raw); !ok || s != fmt.Sprintf("bound/%d", i) {
			t.Fatalf("%s: %q %v", raw, s, ok)
		}
	}
	if n := internSize(interned.Load()); n > internEntries {
		t.Errorf("table holds %d strings, bound %d", n, internEntries)
	}
	long := []byte(`"` + strings.Repeat("y", internMaxBytes+1) + `"`)
	UnquoteInterned(long)
	if _, ok := (*interned.Load())[string(long[1:len(long)-1])]; ok {
		t.Errorf("a string over %d bytes was kept", internMaxBytes)
	}
}
