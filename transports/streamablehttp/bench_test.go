package streamablehttp_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"

	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// BenchmarkListenerCall measures a tools/call over the native listener
// with keep-alive clients in parallel: decoding, admission, one executor
// job, one request actor, and the JSON response.
func BenchmarkListenerCall(b *testing.B) {
	srv := testfixture.StartHTTP(b, testRuntime(b, nil))
	frame := call(1, "echo", map[string]any{"text": "hi"})
	header := testfixture.HTTPHeaders(frame)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	b.Cleanup(client.CloseIdleConnections)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL(), bytes.NewReader(frame))
			req.Header = header.Clone()
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkHandle measures the host-neutral path alone, without a
// network.
func BenchmarkHandle(b *testing.B) {
	h := newHandler(b, testRuntime(b, nil))
	b.Cleanup(func() { _ = h.Close() })
	frame := call(1, "echo", map[string]any{"text": "hi"})
	header := testfixture.HTTPHeaders(frame) // only read by the handler
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := streamablehttp.Request{Method: http.MethodPost, Path: "/mcp", Header: header, ContentLength: int64(len(frame)), Body: bytes.NewReader(frame)}
			resp, stream := h.Handle(context.Background(), &req)
			if stream != nil || resp.Status != 200 {
				b.Errorf("unexpected answer")
				return
			}
		}
	})
}
