package dispatch_test

import (
	"encoding/json"
	"log/slog"
	"testing"

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

// callWith is call with the request's transport fields set by setup.
func callWith(t testing.TB, rt *dispatch.Runtime, method string, params map[string]any, setup func(*dispatch.Request)) *testkit.Frame {
	t.Helper()
	f := testfixture.DispatchRequest(t, rt, testkit.Request(1, method, params), setup)
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

// toolText returns the text of a tools/call result's first content block
// and its isError flag.
func toolText(t testing.TB, f *testkit.Frame) (string, bool) {
	t.Helper()
	r := resultOf(t, f)
	content, _ := r["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content: %s", f.Raw)
	}
	block, _ := content[0].(map[string]any)
	text, _ := block["text"].(string)
	isErr, _ := r["isError"].(bool)
	return text, isErr
}

// captureLogger returns a logger writing JSON lines into a buffer.
func captureLogger() (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
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

// decodeRequest decodes a raw message into a dispatch.Request.
func decodeRequest(t testing.TB, raw []byte) *dispatch.Request {
	t.Helper()
	msg, err := jsonrpc.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return &dispatch.Request{Message: msg}
}
