package streamablehttp_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/faultio"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// Fault injection at the HTTP transport's edges: the request body, the
// response writer, and the native listener's connections, each fault
// with its specified outcome.

// serveBody runs ServeHTTP on an echo call whose body is read through
// body(frame), and returns the recorded answer.
func serveBody(t *testing.T, h http.Handler, frame []byte, body func([]byte) io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req, err := testfixture.NewMCPRequest(context.Background(), "http://127.0.0.1/mcp", frame)
	if err != nil {
		t.Fatal(err)
	}
	req.Body = io.NopCloser(body(frame))
	req.RemoteAddr = "127.0.0.1:50000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// A body read in short pieces, down to a byte at a time, or whose last
// read returns its data together with io.EOF, is served as any other.
func TestFaultBodyShortReadsAndDataWithEOF(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil))
	t.Cleanup(func() { _ = h.Close() })
	frame := call(1, "echo", map[string]any{"text": "through a narrow pipe"})
	for name, body := range map[string]func([]byte) io.Reader{
		"one byte per read": func(b []byte) io.Reader { return &faultio.Reader{R: bytes.NewReader(b), MaxRead: 1} },
		"data with EOF": func(b []byte) io.Reader {
			return &faultio.Reader{R: bytes.NewReader(b), Err: io.EOF, FailAfter: int64(len(b)), WithData: true}
		},
	} {
		rec := serveBody(t, h, frame, body)
		f := testfixture.CheckFrame(t, rec.Body.Bytes(), "tools/call")
		if rec.Code != http.StatusOK || !strings.Contains(string(f.Result), "through a narrow pipe") {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
}

// A body that fails before it is complete (the client's connection
// reset) gets 400 with the body-read error and runs nothing.
func TestFaultBodyFailsMidway(t *testing.T) {
	g := newGate()
	h := newHandler(t, testRuntime(t, g))
	t.Cleanup(func() { _ = h.Close() })
	frame := call(1, "hold", nil)
	for _, withData := range []bool{false, true} {
		rec := serveBody(t, h, frame, func(b []byte) io.Reader {
			return &faultio.Reader{R: bytes.NewReader(b), MaxRead: 16, Err: syscall.ECONNRESET, FailAfter: int64(len(b) / 2), WithData: withData}
		})
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "body could not be read") {
			t.Fatalf("with data %t: %d %s", withData, rec.Code, rec.Body)
		}
	}
	select {
	case id := <-g.entered:
		t.Fatalf("the handler of a request whose body failed ran (%s)", id)
	default:
	}
}

// A body that stalls past the body timeout gets 408.
func TestFaultBodyStallPastTheBodyTimeout(t *testing.T) {
	const timeout = 50 * time.Millisecond
	h := newHandler(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: timeout}))
	t.Cleanup(func() { _ = h.Close() })
	var once sync.Once
	rec := serveBody(t, h, call(1, "echo", map[string]any{"text": "late"}), func(b []byte) io.Reader {
		return &faultio.Reader{R: bytes.NewReader(b), MaxRead: 8, Stall: func() {
			once.Do(func() { <-time.After(3 * timeout) }) // the fault: a client that goes quiet
		}}
	})
	if rec.Code != http.StatusRequestTimeout {
		t.Fatalf("%d %s, want 408", rec.Code, rec.Body)
	}
}

// faultyResponse is a ResponseWriter whose body writes go through a
// faultio.Writer.
type faultyResponse struct {
	*httptest.ResponseRecorder
	w *faultio.Writer
}

func (f *faultyResponse) Write(b []byte) (int, error) { return f.w.Write(b) }

// An event stream whose write fails (the client's connection broke)
// cancels its request: the progress report being written fails, the
// handler's context ends, and nothing more is written.
func TestFaultEventStreamWriteFails(t *testing.T) {
	reported := make(chan error, 1)
	ended := make(chan error, 1)
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet()),
		dispatch.WithTool(mcp.Tool{Name: "steps"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var err error
			for i := 1; err == nil && i <= 1000; i++ {
				err = dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i)})
			}
			reported <- err
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt)
	t.Cleanup(func() { _ = h.Close() })
	req, err := testfixture.NewMCPRequest(context.Background(), "http://127.0.0.1/mcp", progressCall(1, "steps"))
	if err != nil {
		t.Fatal(err)
	}
	req.RemoteAddr = "127.0.0.1:50000"
	rec := httptest.NewRecorder()
	w := &faultio.Writer{W: rec, Err: syscall.EPIPE, FailAfter: 10}
	h.ServeHTTP(&faultyResponse{ResponseRecorder: rec, w: w}, req)
	for what, ch := range map[string]chan error{"the progress report whose write failed": reported, "the handler's context": ended} {
		select {
		case err := <-ch:
			if err == nil {
				t.Fatalf("%s did not fail", what)
			}
		case <-time.After(testkit.DefaultTimeout):
			t.Fatalf("%s: nothing within %s", what, testkit.DefaultTimeout)
		}
	}
	if n := w.CallsAfterFailure(); n != 0 {
		t.Fatalf("%d writes after the failed one", n)
	}
	if got := rec.Body.Len(); got != 10 {
		t.Fatalf("the client got %d bytes, want the 10 the connection took", got)
	}
}

// The native listener on connections whose reads return a byte at a
// time serves as usual; a connection whose writes fail part way through
// a response loses that response only: its request is cancelled and the
// next connection is served.
func TestFaultListenerConnections(t *testing.T) {
	var mu sync.Mutex
	failNext := false
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &faultio.Listener{Listener: inner, Wrap: func(c net.Conn) net.Conn {
		mu.Lock()
		defer mu.Unlock()
		w := &faultio.Writer{}
		if failNext {
			w.Err, w.FailAfter = syscall.EPIPE, 20
			failNext = false
		}
		return faultio.NewConn(c, &faultio.Reader{MaxRead: 1}, w)
	}}
	rt := testRuntime(t, nil)
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close(context.Background()) })
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithListener(ln), streamablehttp.WithSupervisor(sup))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	post := func() (*testfixture.HTTPReply, error) {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		req, err := testfixture.NewMCPRequest(context.Background(), srv.URL(), call(1, "echo", map[string]any{"text": "over a slow line"}))
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return &testfixture.HTTPReply{Status: resp.StatusCode, Body: body}, err
	}
	r, err := post()
	if err != nil || r.Status != http.StatusOK || !strings.Contains(string(r.Body), "over a slow line") {
		t.Fatalf("one byte per read: %v %+v", err, r)
	}
	mu.Lock()
	failNext = true
	mu.Unlock()
	if r, err := post(); err == nil && r.Status == http.StatusOK && strings.Contains(string(r.Body), "over a slow line") {
		t.Fatalf("a whole response came over a connection that failed after 20 bytes: %+v", r)
	}
	r, err = post()
	if err != nil || r.Status != http.StatusOK || !strings.Contains(string(r.Body), "over a slow line") {
		t.Fatalf("the connection after the failed one: %v %+v", err, r)
	}
	testkit.WaitNoRequests(t, sup)
}
