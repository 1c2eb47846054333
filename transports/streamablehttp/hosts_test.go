package streamablehttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// plainRequest is how a server other than net/http describes a POST.
func plainRequest(frame []byte, peer string) *streamablehttp.Request {
	return &streamablehttp.Request{
		Method:        http.MethodPost,
		Path:          "/mcp",
		Host:          "127.0.0.1",
		Header:        testfixture.HTTPHeaders(frame),
		ContentLength: int64(len(frame)),
		Body:          bytes.NewReader(frame),
		Peer:          peer,
	}
}

func checkJSONResponse(t *testing.T, resp *streamablehttp.Response, method string, status int) *testkit.Frame {
	t.Helper()
	if resp.Status != status || resp.ContentType != "application/json" {
		t.Fatalf("status %d %q: %s", resp.Status, resp.ContentType, resp.Body)
	}
	return testfixture.CheckFrame(t, resp.Body, method)
}

func TestHandleServesAPlainRequest(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil))
	t.Cleanup(func() { _ = h.Close() })
	resp, stream := h.Handle(context.Background(), plainRequest(call(1, "echo", map[string]any{"text": "hi"}), ""))
	if stream != nil {
		t.Fatal("a plain call answered with a stream")
	}
	f := checkJSONResponse(t, resp, "tools/call", 200)
	if !bytes.Contains(f.Result, []byte(`"hi"`)) {
		t.Fatalf("result %s", f.Raw)
	}
	resp, _ = h.Handle(context.Background(), plainRequest(testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}), ""))
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fatalf("notification: %d %q", resp.Status, resp.Body)
	}
}

func TestPrepareRunsNoApplicationCode(t *testing.T) {
	var runs atomic.Int64
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet()),
		dispatch.WithTool(mcp.Tool{Name: "count"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return mcp.TextResult("counted"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt)
	t.Cleanup(func() { _ = h.Close() })
	frame := call(1, "count", nil)
	bad := plainRequest(frame, "")
	bad.Header.Set("Accept", "application/json")
	if p, resp := h.Prepare(bad); p != nil || resp.Status != http.StatusNotAcceptable {
		t.Fatalf("bad Accept prepared: %v", resp)
	}
	p, resp := h.Prepare(plainRequest(frame, ""))
	if p == nil || p.Method() != "tools/call" {
		t.Fatalf("refused: %+v", resp)
	}
	if runs.Load() != 0 {
		t.Fatal("Prepare ran the tool")
	}
	p.Discard()
	p, _ = h.Prepare(plainRequest(frame, ""))
	resp, _ = h.Execute(context.Background(), p)
	checkJSONResponse(t, resp, "tools/call", 200)
	if runs.Load() != 1 {
		t.Fatalf("the tool ran %d times", runs.Load())
	}
	// A prepared request runs once.
	if resp, _ := h.Execute(context.Background(), p); resp.Status != http.StatusInternalServerError {
		t.Fatalf("second Execute: %d", resp.Status)
	}
}

func TestExecuteStreamsProgress(t *testing.T) {
	h := newHandler(t, testRuntime(t, nil))
	t.Cleanup(func() { _ = h.Close() })
	resp, stream := h.Handle(context.Background(), plainRequest(progressCall(5, "progress"), ""))
	if resp != nil || stream == nil {
		t.Fatalf("no stream: %+v", resp)
	}
	if stream.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("headers %v", stream.Header())
	}
	var frames []*testkit.Frame
	for {
		chunk, err := stream.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sr := testfixture.NewSSEReader(bytes.NewReader(chunk))
		data, comment, err := sr.Next()
		if err != nil || comment {
			t.Fatalf("chunk %q", chunk)
		}
		frames = append(frames, testfixture.CheckFrame(t, data, "tools/call"))
	}
	if len(frames) != 4 || frames[0].Method != "notifications/progress" || string(frames[3].ID) != "5" {
		t.Fatalf("%d frames", len(frames))
	}
}

func TestStreamEndsWithItsClient(t *testing.T) {
	g := newGate()
	h := newHandler(t, testRuntime(t, g))
	t.Cleanup(func() { _ = h.Close() })

	// The client goes away while Next waits: the request is cancelled.
	_, stream := h.Handle(context.Background(), plainRequest(progressCall(1, "progress-hold"), ""))
	if _, err := stream.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-g.entered // the handler continues once the first event is acknowledged
		cancel()
	}()
	if _, err := stream.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v", err)
	}
	if id := waitFor(t, g.cancelled); id != "1" {
		t.Fatalf("cancelled %s", id)
	}
	if _, err := stream.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("Next after the end: %v", err)
	}

	// The host gives up on the stream (a write failed): Close cancels it,
	// and the handler's pending notification fails.
	_, stream = h.Handle(context.Background(), plainRequest(progressCall(2, "progress-hold"), ""))
	if _, err := stream.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	testkit.WaitNoRequests(t, streamablehttp.HandlerSupervisor(h))
	if n := executorCount(t, streamablehttp.HandlerSupervisor(h), "cancelled"); n != 2 {
		t.Fatalf("executor: %d cancelled", n)
	}
}

func TestDuplicateIDsAreScopedToOnePeer(t *testing.T) {
	g := newGate()
	h := newHandler(t, testRuntime(t, g))
	t.Cleanup(func() { _ = h.Close() })
	frame := call("same", "hold", nil)
	first := make(chan *streamablehttp.Response, 1)
	go func() {
		resp, _ := h.Handle(context.Background(), plainRequest(frame, "10.0.0.1:1000"))
		first <- resp
	}()
	waitFor(t, g.entered)
	resp, _ := h.Handle(context.Background(), plainRequest(frame, "10.0.0.1:1000"))
	f := checkJSONResponse(t, resp, "tools/call", http.StatusBadRequest)
	if f.Error == nil || f.Error.Code != -32600 {
		t.Fatalf("duplicate from one peer: %s", f.Raw)
	}
	// Another peer may use the same id at the same time.
	other := make(chan *streamablehttp.Response, 1)
	go func() {
		resp, _ := h.Handle(context.Background(), plainRequest(frame, "10.0.0.2:1000"))
		other <- resp
	}()
	waitFor(t, g.entered)
	close(g.release)
	for _, ch := range []chan *streamablehttp.Response{first, other} {
		checkJSONResponse(t, <-ch, "tools/call", 200)
	}
}

func TestDiscardReturnsTheSubscriptionSlot(t *testing.T) {
	rt := testRuntime(t, nil)
	h := newHandler(t, rt, streamablehttp.WithSupervisor(limitedSupervisor(t, rt, supervisor.Limits{MaxSubscriptions: 1})))
	t.Cleanup(func() { _ = h.Close() })
	p, resp := h.Prepare(plainRequest(listenFrame(1), ""))
	if p == nil {
		t.Fatalf("refused: %+v", resp)
	}
	if _, resp := h.Prepare(plainRequest(listenFrame(2), "")); resp == nil || resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("second listen over a cap of 1: %+v", resp)
	}
	p.Discard()
	p, resp = h.Prepare(plainRequest(listenFrame(3), ""))
	if p == nil {
		t.Fatalf("after Discard: %+v", resp)
	}
	p.Discard()
}
