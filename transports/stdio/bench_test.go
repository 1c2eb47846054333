package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// BenchmarkPipelinedEcho measures the whole request path over in-memory
// pipes: framing, decoding, admission, the executor, the request actor,
// the tool, encoding and the writer, with the client keeping many requests
// in flight (at most window, well within the executor's capacity).
func BenchmarkPipelinedEcho(b *testing.B) {
	rt := testRuntime(b, newGate())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, err := stdio.Start(context.Background(), rt, stdio.WithInput(inR), stdio.WithOutput(outW))
	if err != nil {
		b.Fatal(err)
	}
	// Every request has its own id: {"id":N, followed by the rest.
	req := testkit.Request(0, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}})
	rest := append(bytes.TrimPrefix(bytes.TrimPrefix(req, []byte(`{"id":0`)), []byte(`{`)), '\n')
	if !bytes.HasPrefix(req, []byte(`{"id":0,`)) {
		b.Fatalf("unexpected request layout: %s", req)
	}
	const window = 128
	tokens := make(chan struct{}, window)
	go func() {
		w := bufio.NewWriter(inW)
		var line []byte
		for i := range b.N {
			select {
			case tokens <- struct{}{}:
			default: // the window is full: let the server see what is buffered, then wait
				_ = w.Flush()
				tokens <- struct{}{}
			}
			line = append(strconv.AppendInt(append(line[:0], `{"id":`...), int64(i), 10), rest...)
			if _, err := w.Write(line); err != nil {
				return
			}
			if w.Buffered() > 32<<10 {
				_ = w.Flush()
			}
		}
		_ = w.Flush()
		inW.Close()
	}()
	b.ReportAllocs()
	b.ResetTimer()
	sc := bufio.NewScanner(outR)
	n := 0
	for n < b.N && sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"result"`)) {
			b.Fatalf("not a result: %s", sc.Bytes())
		}
		<-tokens
		n++
	}
	b.StopTimer()
	if n != b.N {
		b.Fatalf("%d responses for %d requests", n, b.N)
	}
	if err := c.Wait(); err != nil {
		b.Fatal(err)
	}
	outW.Close()
}
