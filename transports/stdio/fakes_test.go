package stdio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/stdio"
)

// blockingWriter blocks every Write until release is closed, then fails
// it. It records whether Close was ever called (it must not be).
type blockingWriter struct {
	entered chan struct{} // closed by the first Write
	release chan struct{}
	once    sync.Once
	writes  atomic.Int64
	closed  atomic.Bool
}

func newBlockingWriter() *blockingWriter {
	return &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return 0, errors.New("released")
}

func (w *blockingWriter) Close() error { w.closed.Store(true); return nil }

// failingWriter fails every write with err after the first ok writes,
// which it keeps. wrote receives a value after each successful write (it
// drops them when nobody listens).
type failingWriter struct {
	err    error
	ok     int64
	writes atomic.Int64
	wrote  chan struct{}
	mu     sync.Mutex
	buf    bytes.Buffer
}

func newFailingWriter(err error, ok int64) *failingWriter {
	return &failingWriter{err: err, ok: ok, wrote: make(chan struct{}, 1)}
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes.Add(1) > w.ok {
		return 0, w.err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		select {
		case w.wrote <- struct{}{}:
		default:
		}
	}()
	return w.buf.Write(p)
}

func (w *failingWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// closeRecordingWriter is an output that records whether Close was
// called.
type closeRecordingWriter struct {
	*failingWriter
	closed atomic.Bool
}

func (w *closeRecordingWriter) Close() error { w.closed.Store(true); return nil }

// closeRecordingReader is an input that records whether Close was called.
type closeRecordingReader struct {
	io.Reader
	closed atomic.Bool
}

func (r *closeRecordingReader) Close() error { r.closed.Store(true); return nil }

// logRecorder is a slog handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{}, 1)} }

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.records = append(l.records, r.Clone())
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// find returns the attributes of the first record whose message contains
// msg, and whether there was one.
func (l *logRecorder) find(msg string) (map[string]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if bytes.Contains([]byte(r.Message), []byte(msg)) {
			attrs := map[string]string{}
			r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			return attrs, true
		}
	}
	return nil, false
}

// startPiped starts a transport reading from a pipe the test writes to,
// with the given output. The input pipe is closed when the test ends.
func startPiped(t *testing.T, ctx context.Context, rt *dispatch.Runtime, out io.Writer, opts ...stdio.Option) (*stdio.Conn, *io.PipeWriter) {
	t.Helper()
	inR, inW := io.Pipe()
	c, err := stdio.Start(ctx, rt, append([]stdio.Option{stdio.WithInput(inR), stdio.WithOutput(out)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		c.Stop()
		waitDone(t, c)
	})
	return c, inW
}

// waitDone waits for the transport to end and returns Wait's error.
func waitDone(t *testing.T, c *stdio.Conn) error {
	t.Helper()
	select {
	case <-c.Done():
		return c.Wait()
	case <-time.After(10 * time.Second):
		t.Fatal("the transport did not end")
		return nil
	}
}

func writeLine(t *testing.T, w io.Writer, frame []byte) {
	t.Helper()
	if _, err := w.Write(append(append([]byte(nil), frame...), '\n')); err != nil {
		t.Fatalf("writing to the transport: %v", err)
	}
}
