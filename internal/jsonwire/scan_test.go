package jsonwire

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// A two-million-digit literal is refused at its 65th digit: the scanner's
// position proves the work done is bounded by the bound, not the input.
func TestHugeIntegerStopsAtBound(t *testing.T) {
	huge := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + strings.Repeat("7", 2_000_000) + `}}`)
	s := scanner{data: huge}
	if s.value() {
		t.Fatal("accepted a 2,000,000-digit literal")
	}
	if s.err != scanDigits {
		t.Fatalf("error = %v, want the digit bound", s.err)
	}
	start := strings.Index(string(huge[:100]), `"n":`) + 4
	if read := s.pos - start; read > MaxNumberDigits {
		t.Fatalf("scanner read %d digits before refusing, want at most %d", read, MaxNumberDigits)
	}
}

// A million open brackets are refused once the bound is crossed.
func TestDepthBoundStopsEarly(t *testing.T) {
	deep := []byte(`{"a":` + strings.Repeat("[", 1_000_000))
	s := scanner{data: deep}
	if s.value() || s.err != scanDepth || s.pos > MaxDepth+10 {
		t.Fatalf("scan stopped at %d with %v", s.pos, s.err)
	}
}

// Nesting past the bound is refused where it crosses the bound: the
// scanner reads one byte past 128 open brackets and no further and keeps
// no stack (depth is a counter), whatever the input's length.
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
			if _, problem := Scan(data, func(_, _ []byte) bool { return true }); problem != scanDepth.message() {
				t.Fatalf("Scan problem = %q, want %q", problem, scanDepth.message())
			}
		})
	}
}

// skipPlain stops at the first byte that is not plain, wherever it is in
// the word it reads, whatever byte it is, and at the end of the input.
func TestSkipPlainStopsAtEverySpecialByte(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			data := []byte(strings.Repeat("a", 20))
			data[at] = byte(c)
			want := len(data)
			if !plainStringByte[c] {
				want = at
			}
			for from := 0; from <= at; from++ {
				if got := skipPlain(data, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: stopped at %d, want %d", c, at, from, got, want)
				}
			}
		}
	}
	for n := range 20 {
		if got := skipPlain([]byte(strings.Repeat("a", n)), 0); got != n {
			t.Fatalf("%d plain bytes: stopped at %d", n, got)
		}
	}
}

// hasSpecialByte agrees with the table on words of any mix of bytes,
// borrows between neighbouring special bytes included.
func TestHasSpecialByteAgreesWithTheTable(t *testing.T) {
	interesting := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7f, 0x80, 0x81, 0xfe, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	var w [8]byte
	for range 200_000 {
		for i := range w {
			if rng.IntN(2) == 0 {
				w[i] = interesting[rng.IntN(len(interesting))]
			} else {
				w[i] = byte(rng.IntN(256))
			}
		}
		want := false
		for _, c := range w {
			want = want || !plainStringByte[c]
		}
		if got := hasSpecialByte(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("% x: %v, want %v", w, got, want)
		}
	}
}
