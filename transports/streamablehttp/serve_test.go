package streamablehttp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
)

// capturingWriter is a ResponseWriter that records whether anything was
// written to it.
type capturingWriter struct {
	mu      sync.Mutex
	header  http.Header
	status  int
	written []byte
}

func (w *capturingWriter) Header() http.Header { return w.header }

func (w *capturingWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = status
	}
}

func (w *capturingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.written = append(w.written, b...)
	return len(b), nil
}

// A client that goes away while its call runs gets nothing written for
// it, whichever comes first to the handler: the call's result or the
// client's departure. The tool ends the request's context itself just
// before it returns, so both are certainly under way; ServeHTTP is called
// directly, so what it writes is seen whole.
func TestServeHTTPWritesNothingAfterTheClientLeft(t *testing.T) {
	var leave context.CancelFunc
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet()),
		dispatch.WithTool(mcp.Tool{Name: "leave"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			leave()
			return mcp.TextResult("too late"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt)
	defer func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
	}()
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		leave = cancel
		req, err := testfixture.NewMCPRequest(ctx, "http://127.0.0.1/mcp", call(i, "leave", nil))
		if err != nil {
			t.Fatal(err)
		}
		req.RemoteAddr = "127.0.0.1:50000"
		w := &capturingWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != 0 || len(w.written) > 0 {
			t.Fatalf("call %d: written after the client left: status %d, body %q", i, w.status, w.written)
		}
	}
}
