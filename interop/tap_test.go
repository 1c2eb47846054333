package interop

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
)

// tapReader records each newline-terminated JSON-RPC message read through
// it (a stdio client's view of the server's output).
type tapReader struct {
	r    io.ReadCloser
	f    *frames
	sent bool
	buf  []byte
}

func (t *tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.f.record(t.sent, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	return n, err
}

func (t *tapReader) Close() error { return t.r.Close() }

// tapWriter records what a stdio client writes to the server.
type tapWriter struct {
	w   io.WriteCloser
	f   *frames
	mu  sync.Mutex
	buf []byte
}

func (t *tapWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.f.record(true, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *tapWriter) Close() error { return t.w.Close() }

// tapTransport is an http.RoundTripper that records the JSON-RPC messages
// of each POST body and of each response, JSON or an event stream.
type tapTransport struct {
	next http.RoundTripper
	f    *frames
}

func (t *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		t.f.record(true, body)
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	resp.Body = &tapBody{r: resp.Body, f: t.f, sse: sse}
	return resp, nil
}

// tapBody records a response's messages as the client reads them: the
// whole body for JSON, each event's data for an event stream.
type tapBody struct {
	r    io.ReadCloser
	f    *frames
	sse  bool
	buf  []byte
	data []string
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.buf = append(b.buf, p[:n]...)
	if b.sse {
		for {
			i := bytes.IndexByte(b.buf, '\n')
			if i < 0 {
				break
			}
			line := strings.TrimSuffix(string(b.buf[:i]), "\r")
			b.buf = b.buf[i+1:]
			switch {
			case line == "":
				if len(b.data) > 0 {
					b.f.record(false, []byte(strings.Join(b.data, "\n")))
					b.data = nil
				}
			case strings.HasPrefix(line, "data:"):
				b.data = append(b.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	} else if err == io.EOF {
		b.f.record(false, b.buf)
		b.buf = nil
	}
	return n, err
}

func (b *tapBody) Close() error { return b.r.Close() }
