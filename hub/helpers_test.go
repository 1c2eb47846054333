// Helpers the hub package's tests share: building a Runtime, calling it,
// and reading its listen streams.

package hub_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

var testInfo = mcp.Implementation{Name: "test-server", Version: "1.0.0"}

// mustNew builds a Runtime or fails the test.
func mustNew(t testing.TB, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(testInfo, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return rt
}

// call dispatches one 2026-07-28 request and returns its validated frame.
func call(t testing.TB, rt *dispatch.Runtime, method string, params map[string]any) *testkit.Frame {
	t.Helper()
	f := testfixture.Dispatch(t, rt, testkit.Request(1, method, params))
	if f == nil {
		t.Fatalf("%s: no response", method)
	}
	return f
}

// result decodes a successful response's result.
func resultOf(t testing.TB, f *testkit.Frame) map[string]any {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("unexpected error %d %q: %s", f.Error.Code, f.Error.Message, f.Raw)
	}
	var m map[string]any
	if err := json.Unmarshal(f.Result, &m); err != nil {
		t.Fatalf("result: %v", err)
	}
	return m
}

// rpcError asserts the response is an error with code and returns it.
func rpcError(t testing.TB, f *testkit.Frame, code int64) *testkit.FrameError {
	t.Helper()
	if f.Error == nil {
		t.Fatalf("want error %d, got result %s", code, f.Raw)
	}
	if f.Error.Code != code {
		t.Fatalf("want error %d, got %d %q: %s", code, f.Error.Code, f.Error.Message, f.Raw)
	}
	return f.Error
}

// errorData decodes an error's data object.
func errorData(t testing.TB, e *testkit.FrameError) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("error data %s: %v", e.Data, err)
	}
	return m
}

func names(list []any, key string) []string {
	var out []string
	for _, it := range list {
		m, _ := it.(map[string]any)
		s, _ := m[key].(string)
		out = append(out, s)
	}
	return out
}

func okTool(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.TextResult("ok"), nil
}

func okPrompt(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{}, nil
}

func okResource(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, Text: "x"}}}, nil
}

// listenCall admits a subscriptions/listen with the given notifications
// member (left out when nil).
func listenCall(t testing.TB, rt *dispatch.Runtime, id any, notifications any) (*dispatch.Call, dispatch.Outcome) {
	t.Helper()
	params := map[string]any{}
	if notifications != nil {
		params["notifications"] = notifications
	}
	msg, err := jsonrpc.Decode(testkit.Request(id, dispatch.MethodListen, params))
	if err != nil {
		t.Fatal(err)
	}
	return rt.Admit(&dispatch.Request{Message: msg})
}

// waker counts wake calls and lets a test wait for one.
type waker struct {
	n  atomic.Int64
	ch chan struct{}
}

func (w *waker) wake() {
	w.n.Add(1)
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

func (w *waker) wait(t testing.TB) {
	t.Helper()
	select {
	case <-w.ch:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("wake was never called")
	}
}

func newWaker() *waker { return &waker{ch: make(chan struct{}, 1)} }

// openStream admits and opens a listen stream.
func openStream(t testing.TB, rt *dispatch.Runtime, id any, notifications any, w *waker) *dispatch.Stream {
	t.Helper()
	c, out := listenCall(t, rt, id, notifications)
	if c == nil {
		t.Fatalf("listen refused: %s", out.Frame)
	}
	s, out := rt.OpenStream(context.Background(), c, w.wake)
	if s == nil {
		t.Fatalf("open failed: %s", out.Frame)
	}
	t.Cleanup(s.Close)
	return s
}

// next returns the stream's next frame, validated against the schema.
func next(t testing.TB, s *dispatch.Stream) (frame []byte, last bool) {
	t.Helper()
	frame, last = s.Next()
	if frame != nil {
		if err := testkit.ValidateFrame(testfixture.Version, frame, dispatch.MethodListen); err != nil {
			t.Fatalf("frame fails the schema: %v\n%s", err, frame)
		}
	}
	return frame, last
}

type wireFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		URI           string                     `json:"uri"`
		Notifications map[string]any             `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
		RequestID     json.RawMessage            `json:"requestId"`
	} `json:"params"`
	Result *struct {
		ResultType string                     `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	} `json:"result"`
	Error *testkit.FrameError `json:"error"`
}

func decodeFrame(t testing.TB, b []byte) wireFrame {
	t.Helper()
	var f wireFrame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return f
}
