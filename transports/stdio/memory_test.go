package stdio_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// longLine is an input made of one line of left bytes (not counting its
// newline), produced on the fly, followed by tail. It samples the heap
// after every read for the first 8 MiB, where the line buffer grows to
// the limit and is dropped, and every 32 MiB after that.
type longLine struct {
	left   int64
	tail   []byte
	block  []byte
	sample func()
	read   int64
	since  int64
}

func (g *longLine) Read(p []byte) (int, error) {
	if g.left > 0 {
		n := copy(p[:min(int64(len(p)), g.left)], g.block)
		g.left -= int64(n)
		g.read += int64(n)
		if g.since += int64(n); g.read <= 8<<20 || g.since >= 32<<20 {
			g.since = 0
			g.sample()
		}
		return n, nil
	}
	if len(g.tail) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.tail)
	g.tail = g.tail[n:]
	return n, nil
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestOneGiBLineKeepsTheHeapBounded feeds a 1 GiB line, then a normal
// request, through the whole transport: the line is refused with -32600
// and no id, the request after it is served, and the heap never grows
// by more than a small multiple of the line limit (the line buffer grows
// by doubling up to the limit; the chunks discarded after it are not
// kept).
func TestOneGiBLineKeepsTheHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB")
	}
	const limit = stdio.DefaultMaxLineBytes
	// The supervision tree is made first, so its own few megabytes are
	// part of the baseline.
	rt := testRuntime(t, newGate())
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close(context.Background())
	runtime.GC()
	base := heapAlloc()
	var peak uint64
	in := &longLine{
		left:   1 << 30,
		tail:   append([]byte("\n"), append(testkit.Request(1, "server/discover", nil), '\n')...),
		block:  bytes.Repeat([]byte(`{"a":`), 64<<10/5+1),
		sample: func() { peak = max(peak, heapAlloc()) },
	}
	var out bytes.Buffer
	if err := stdio.Serve(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(in), stdio.WithOutput(&out)); err != nil {
		t.Fatal(err)
	}
	if in.left != 0 {
		t.Fatalf("%d bytes of the line were never read", in.left)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `{"jsonrpc":"2.0","error":{"code":-32600`) || !strings.Contains(lines[1], `"id":1,"result"`) {
		t.Fatalf("output:\n%s", out.String())
	}
	grown := int64(peak) - int64(base)
	t.Logf("heap grew by at most %d bytes while reading a 1 GiB line (limit %d)", grown, limit)
	if grown > 3*limit {
		t.Fatalf("heap grew by %d bytes for one line; the bound is 3 × the %d-byte limit", grown, limit)
	}
	if peak == 0 {
		t.Fatal("the heap was never sampled")
	}
}
