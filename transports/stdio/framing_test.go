package stdio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/tree"
)

// readAll frames r and returns the frames read, with "TOO LARGE" standing
// for each refused line, until EOF or another error.
func readAll(t *testing.T, r io.Reader, maxLine int) []string {
	t.Helper()
	l := newLineReader(r, maxLine)
	var out []string
	for {
		f, err := l.ReadFrame()
		switch {
		case errors.Is(err, tree.ErrFrameTooLarge):
			out = append(out, "TOO LARGE")
		case errors.Is(err, io.EOF):
			return out
		case err != nil:
			t.Fatalf("ReadFrame: %v", err)
		default:
			out = append(out, string(f))
		}
		if l.peak > maxLine {
			t.Fatalf("held %d bytes for one line; the limit is %d", l.peak, maxLine)
		}
	}
}

func TestLineReaderFraming(t *testing.T) {
	long := strings.Repeat("a", 200_000)
	for _, tc := range []struct {
		name  string
		input string
		max   int
		want  []string
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", 100, []string{`{"a":1}`, `{"b":2}`}},
		{"blank lines skipped", "\n  \n{}\r\n\n", 100, []string{"{}\r"}},
		{"unterminated last line", "{}\n{\"x\":1}", 100, []string{"{}", `{"x":1}`}},
		{"leading BOM", "\xEF\xBB\xBF{}\n", 100, []string{"{}"}},
		{"BOM only at the start", "{}\n\xEF\xBB\xBF{}\n", 100, []string{"{}", "\xEF\xBB\xBF{}"}},
		{"exactly the limit", "12345\n", 6, []string{"12345"}},
		{"one byte over", "123456\nok\n", 6, []string{"TOO LARGE", "ok"}},
		{"unterminated over", "ok\n123456", 6, []string{"ok", "TOO LARGE"}},
		{"long line within a larger limit", long + "\nok\n", 300_000, []string{long, "ok"}},
		{"long line over the limit, then a line", long + "\nok\n", 100_000, []string{"TOO LARGE", "ok"}},
		{"two oversize lines", long + "\n" + long + "\nok\n", 100_000, []string{"TOO LARGE", "TOO LARGE", "ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mk := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader, // framing must not depend on chunking
				iotest.HalfReader,
			} {
				got := readAll(t, mk(strings.NewReader(tc.input)), tc.max)
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func TestLineReaderPassesOnInputErrors(t *testing.T) {
	boom := errors.New("boom")
	l := newLineReader(io.MultiReader(strings.NewReader("{}\n{\"partial"), iotest.ErrReader(boom)), 100)
	if f, err := l.ReadFrame(); err != nil || string(f) != "{}" {
		t.Fatalf("first frame: %q %v", f, err)
	}
	if _, err := l.ReadFrame(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the input's error", err)
	}
}

// BenchmarkLineReader reports throughput and the bytes one line holds
// (the line buffer's capacity; the 64 KiB read buffer is shared by all
// lines and not counted).
func BenchmarkLineReader(b *testing.B) {
	for _, bc := range []struct {
		name    string
		lineLen int
		maxLine int
	}{
		{"256B", 256, defaultMaxLineBytes},
		{"16KiB", 16 << 10, defaultMaxLineBytes},
		{"1MiB", 1 << 20, defaultMaxLineBytes},
		{"3MB-refused", 3_000_000, defaultMaxLineBytes},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := append(bytes.Repeat([]byte("x"), bc.lineLen-1), '\n')
			const lines = 64
			input := bytes.Repeat(line, lines)
			b.SetBytes(int64(len(input)))
			b.ReportAllocs()
			var held, peak int
			r := bytes.NewReader(input)
			for b.Loop() {
				r.Reset(input)
				l := newLineReader(r, bc.maxLine)
				for {
					f, err := l.ReadFrame()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil && !errors.Is(err, tree.ErrFrameTooLarge) {
						b.Fatal(err)
					}
					held += cap(f)
				}
				peak = max(peak, l.peak)
			}
			b.ReportMetric(float64(held)/float64(b.N*lines), "held-B/line")
			b.ReportMetric(float64(peak), "peak-B/line")
		})
	}
}

// countingSink counts refusals without allocating.
type countingSink struct {
	instrumentation.Nop
	n int
}

func (s *countingSink) Refusal(instrumentation.RefusalEvent) { s.n++ }

// Refusing a line allocates the same with a sink as without one: the
// event is built on the stack, and only when a sink is set.
func TestLineRefusalEventDoesNotAllocate(t *testing.T) {
	line := strings.Repeat("x", 200) + "\n"
	allocs := func(sink instrumentation.Sink) float64 {
		r := strings.NewReader("")
		l := newLineReader(r, 100)
		if sink != nil {
			l.sink = sink
		}
		return testing.AllocsPerRun(200, func() {
			r.Reset(line)
			l.r.Reset(r)
			if _, err := l.ReadFrame(); !errors.Is(err, tree.ErrFrameTooLarge) {
				t.Fatalf("ReadFrame: %v", err)
			}
		})
	}
	sink := &countingSink{}
	none, with := allocs(nil), allocs(sink)
	if sink.n == 0 {
		t.Fatal("the sink heard no refusal")
	}
	if with != none {
		t.Fatalf("a refused line allocates %v times with a sink, %v without", with, none)
	}
	l := newLineReader(strings.NewReader(""), 100)
	if n := testing.AllocsPerRun(100, l.refused); n != 0 {
		t.Fatalf("noting a refusal without a sink allocates %v times", n)
	}
}
