package stdio

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/snodo-go/snodo/internal/tree"
)

// tooLarge stands for a refused line in the expected and actual framings.
const tooLarge = "\x00TOO LARGE"

// expectedFrames is the framing the line reader must produce, computed
// from the whole input at once: a leading byte order mark is dropped,
// lines end at '\n', a line whose bytes plus its newline exceed maxLine is
// refused, blank lines are skipped, and an unterminated last line counts
// as if it had its newline.
func expectedFrames(data []byte, maxLine int) []string {
	data = bytes.TrimPrefix(data, utf8BOM)
	var out []string
	for len(data) > 0 {
		line, rest, terminated := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !terminated && len(line) == 0 {
			break
		}
		switch {
		case len(line)+1 > maxLine:
			out = append(out, tooLarge)
		case len(bytes.TrimSpace(line)) > 0:
			out = append(out, string(line))
		}
	}
	return out
}

// chunkReader returns the bytes of data in pieces whose sizes come from
// rng: mostly tiny, sometimes large, so lines straddle reads in every way.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	var n int
	switch r.rng.IntN(4) {
	case 0:
		n = 1
	case 1:
		n = 1 + r.rng.IntN(16)
	case 2:
		n = 1 + r.rng.IntN(4096)
	default:
		n = 1 + r.rng.IntN(3*chunkSize)
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// frameAll frames r to the end and checks the memory bound after every
// frame: no line buffer larger than maxLine is ever allocated, and no
// frame is longer than a line may be.
func frameAll(t *testing.T, r io.Reader, maxLine int) []string {
	t.Helper()
	l := newLineReader(r, maxLine)
	var out []string
	for {
		f, err := l.ReadFrame()
		switch {
		case errors.Is(err, tree.ErrFrameTooLarge):
			out = append(out, tooLarge)
		case errors.Is(err, io.EOF):
			return out
		case err != nil:
			t.Fatalf("ReadFrame: %v", err)
		default:
			if len(f) >= maxLine {
				t.Fatalf("a %d-byte frame passed a %d-byte limit (newline included)", len(f), maxLine)
			}
			out = append(out, string(f))
		}
		if l.peak > maxLine {
			t.Fatalf("held a %d-byte line buffer; the limit is %d", l.peak, maxLine)
		}
	}
}

// FuzzLineReader checks that framing does not depend on how the input is
// chunked (the same bytes through a reader returning random chunk sizes,
// and through one returning everything at once, give the frames the
// whole-input model says), and that no line ever holds more memory than
// the limit. pad inserts a long run of bytes so that lines cross the 64
// KiB read buffer; limit picks the line limit, small or around the
// buffer's size.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), uint32(0), uint32(100), uint64(1))
	f.Add([]byte("\xEF\xBB\xBF{}\n\n  \n{}\r\n"), uint32(0), uint32(10), uint64(2))
	f.Add([]byte("\xEF\xBB"), uint32(0), uint32(2), uint64(3))
	f.Add([]byte("ok\n123456\nok"), uint32(0), uint32(6), uint64(4))
	f.Add([]byte("12345\n"), uint32(0), uint32(6), uint64(5))
	f.Add([]byte("a\nb\n"), uint32(chunkSize), uint32(chunkSize+1), uint64(6))
	f.Add([]byte("a\nb\n"), uint32(chunkSize+1), uint32(chunkSize+1), uint64(7))
	f.Add([]byte("\nx"), uint32(3*chunkSize), uint32(2*chunkSize), uint64(8))
	f.Add([]byte("\xEF\xBB\xBF\n"), uint32(chunkSize-3), uint32(chunkSize), uint64(9))
	f.Fuzz(func(t *testing.T, data []byte, pad uint32, limit uint32, seed uint64) {
		if len(data) > 1<<16 {
			return
		}
		// Insert up to 256 KiB of 'x' at a position the seed picks.
		if n := int(pad % (256 << 10)); n > 0 {
			at := 0
			if len(data) > 0 {
				at = int(seed % uint64(len(data)+1))
			}
			grown := make([]byte, 0, len(data)+n)
			grown = append(grown, data[:at]...)
			grown = append(grown, bytes.Repeat([]byte{'x'}, n)...)
			data = append(grown, data[at:]...)
		}
		maxLine := 2 + int(limit%(4*chunkSize))
		want := expectedFrames(data, maxLine)
		whole := frameAll(t, bytes.NewReader(data), maxLine)
		chunked := frameAll(t, &chunkReader{data: data, rng: rand.New(rand.NewPCG(seed, uint64(len(data))))}, maxLine)
		if !equalFrames(whole, want) {
			t.Fatalf("read at once: %d frames %.200q, want %d frames %.200q", len(whole), whole, len(want), want)
		}
		if !equalFrames(chunked, want) {
			t.Fatalf("read in random chunks (seed %d): %d frames %.200q, want %d frames %.200q", seed, len(chunked), chunked, len(want), want)
		}
	})
}

func equalFrames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
