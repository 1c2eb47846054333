package streamablehttp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
	"go.uber.org/goleak"
)

// lateWrites records, per probe tag, writes a handler made to a
// ResponseWriter after its request's context had ended: nothing may be
// written for a request once its client has gone.
type lateWrites struct {
	mu   sync.Mutex
	tags map[string]int
}

func (l *lateWrites) count(tag string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tags[tag]
}

type recordingWriter struct {
	http.ResponseWriter
	r   *http.Request
	tag string
	l   *lateWrites
}

func (w *recordingWriter) check() {
	if w.r.Context().Err() != nil {
		w.l.mu.Lock()
		w.l.tags[w.tag]++
		w.l.mu.Unlock()
	}
}

func (w *recordingWriter) WriteHeader(code int)        { w.check(); w.ResponseWriter.WriteHeader(code) }
func (w *recordingWriter) Write(b []byte) (int, error) { w.check(); return w.ResponseWriter.Write(b) }
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// startRecordedHandler serves a Handler behind a middleware that records
// late writes, under httptest.
func startRecordedHandler(t *testing.T, rt *dispatch.Runtime, l *lateWrites, opts ...streamablehttp.Option) *endpoint {
	t.Helper()
	h, err := streamablehttp.NewHandler(rt, append([]streamablehttp.HandlerOption{streamablehttp.WithPath("/mcp")}, handlerOptions(opts)...)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&recordingWriter{ResponseWriter: w, r: r, tag: r.Header.Get("X-Probe-Tag"), l: l}, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		if n := streamablehttp.HandlerSupervisor(h).UnexpectedDeadLetters(); n != 0 {
			t.Errorf("%d unexpected dead letters", n)
		}
	})
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing handler: %v", err)
		}
	})
	return &endpoint{url: ts.URL + "/mcp", addr: ts.Listener.Addr().String(), sup: streamablehttp.HandlerSupervisor(h), kind: "handler"}
}

// httpWorker is one client of the HTTP property test: its own
// connections, its own random sequence of calls.
type httpWorker struct {
	t      *testing.T
	rng    *rand.Rand
	client *http.Client
	url    string
	probe  *testfixture.Probe
	name   string
	next   int
	// disconnected lists the tags of calls the client abandoned.
	disconnected []string
	stubborn     []string // abandoned calls that ignore cancellation
}

func (w *httpWorker) tag() string {
	w.next++
	return fmt.Sprintf("%s-%d", w.name, w.next)
}

// post sends a probe call and returns the response (the body unread).
func (w *httpWorker) post(ctx context.Context, tool, tag string, ms int) (*http.Response, error) {
	frame := testfixture.ProbeCall(tag, tool, tag, ms)
	req, err := testfixture.NewMCPRequest(ctx, w.url, frame)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Probe-Tag", tag)
	return w.client.Do(req)
}

// frames reads a whole answer and returns its JSON-RPC frames, each
// checked against the schema.
func (w *httpWorker) frames(resp *http.Response) ([]*testkit.Frame, error) {
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	switch mt {
	case "application/json":
		return []*testkit.Frame{testfixture.CheckFrame(w.t, body, "tools/call")}, nil
	case "text/event-stream":
		var out []*testkit.Frame
		sr := testfixture.NewSSEReader(bytes.NewReader(body))
		for {
			data, comment, err := sr.Next()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			if !comment {
				out = append(out, testfixture.CheckFrame(w.t, data, "tools/call"))
			}
		}
	}
	return nil, fmt.Errorf("content type %q", mt)
}

// expectOne checks an answer: notifications (progress only) and then
// exactly one response, for the call's id, that satisfies ok.
func (w *httpWorker) expectOne(tool, tag string, status int, resp *http.Response, err error, wantNotes int, ok func(*testkit.Frame) bool) {
	t := w.t
	if err != nil {
		t.Errorf("%s %s: %v", tool, tag, err)
		return
	}
	frames, err := w.frames(resp)
	if err != nil {
		t.Errorf("%s %s: reading the answer: %v", tool, tag, err)
		return
	}
	if resp.StatusCode != status {
		t.Errorf("%s %s: status %d, want %d", tool, tag, resp.StatusCode, status)
	}
	if len(frames) != wantNotes+1 {
		t.Errorf("%s %s: %d frames, want %d notifications and one response", tool, tag, len(frames), wantNotes)
		return
	}
	for _, f := range frames[:wantNotes] {
		if f.Method != "notifications/progress" {
			t.Errorf("%s %s: %s before the response", tool, tag, f.Raw)
		}
	}
	last := frames[wantNotes]
	if last.Method != "" || string(last.ID) != `"`+tag+`"` || !ok(last) {
		t.Errorf("%s %s: final frame %s", tool, tag, last.Raw)
	}
}

func isText(want string) func(*testkit.Frame) bool {
	return func(f *testkit.Frame) bool { return f.Error == nil && testfixture.ProbeText(f) == want }
}

func isError(code int64) func(*testkit.Frame) bool {
	return func(f *testkit.Frame) bool { return f.Error != nil && f.Error.Code == code }
}

func (w *httpWorker) waitGate(ch <-chan struct{}, what string) bool {
	select {
	case <-ch:
		return true
	case <-time.After(testkit.DefaultTimeout):
		w.t.Errorf("%s never happened", what)
		return false
	}
}

// step performs one random call.
func (w *httpWorker) step() {
	ctx := context.Background()
	tag := w.tag()
	switch r := w.rng.IntN(100); {
	case r < 25:
		resp, err := w.post(ctx, "probe_echo", tag, 0)
		w.expectOne("echo", tag, 200, resp, err, 0, isText(tag))
	case r < 37:
		resp, err := w.post(ctx, "probe_slow", tag, w.rng.IntN(10))
		w.expectOne("slow", tag, 200, resp, err, 0, isText(tag))
	case r < 45:
		resp, err := w.post(ctx, "probe_panic", tag, 0)
		w.expectOne("panic", tag, 500, resp, err, 0, isError(-32603))
	case r < 55:
		resp, err := w.post(ctx, "probe_progress", tag, 0)
		w.expectOne("progress", tag, 200, resp, err, 2, isText(tag))
	case r < 60:
		req, err := http.NewRequest(http.MethodPost, w.url, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":`)))
		if err != nil {
			w.t.Error(err)
			return
		}
		req.Header = testfixture.HTTPHeaders(testfixture.ProbeCall(tag, "probe_echo", tag, 0))
		resp, err := w.client.Do(req)
		if err != nil {
			w.t.Errorf("garbage: %v", err)
			return
		}
		frames, err := w.frames(resp)
		if err != nil || resp.StatusCode != 400 || len(frames) != 1 || frames[0].Error == nil || frames[0].Error.Code != -32700 {
			w.t.Errorf("garbage: %d %v %v", resp.StatusCode, frames, err)
		}
	case r < 70:
		// Held, then released while the client waits.
		g := w.probe.Gate(tag)
		type answer struct {
			resp *http.Response
			err  error
		}
		done := make(chan answer, 1)
		go func() {
			resp, err := w.post(ctx, "probe_hold", tag, 0)
			done <- answer{resp, err}
		}()
		if w.waitGate(g.Entered, tag+" starting") {
			g.Release()
		}
		a := <-done
		w.expectOne("hold", tag, 200, a.resp, a.err, 0, isText("released:"+tag))
	case r < 80:
		w.abandon(tag, "probe_hold")
	case r < 88:
		w.abandon(tag, "probe_stubborn")
	default:
		w.abandon(tag, "probe_progress_hold")
	}
}

// abandon starts a call and disconnects once its handler runs (for a
// progress stream, once the first event has arrived).
func (w *httpWorker) abandon(tag, tool string) {
	g := w.probe.Gate(tag)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		resp, err := w.post(ctx, tool, tag, 0)
		if err == nil {
			if tool == "probe_progress_hold" {
				// Read the first event, then go away mid-stream.
				_, _, err = testfixture.NewSSEReader(resp.Body).Next()
				cancel()
				_, _ = io.Copy(io.Discard, resp.Body)
			} else {
				err = fmt.Errorf("an answer (%d) for a call held until its client left", resp.StatusCode)
			}
			resp.Body.Close()
		}
		done <- err
	}()
	if !w.waitGate(g.Entered, tag+" starting") {
		return
	}
	if tool != "probe_progress_hold" {
		cancel()
	}
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		w.t.Errorf("%s %s: %v", tool, tag, err)
	}
	w.disconnected = append(w.disconnected, tag)
	if tool == "probe_stubborn" {
		w.stubborn = append(w.stubborn, tag)
		return
	}
	// The handler sees its client leave.
	w.waitGate(g.Cancelled, tag+" seeing its client leave")
}

// TestPropertyHTTPNothingLost runs concurrent clients through seeded
// random sequences of calls (fast, slow, panicking, streaming progress,
// held and released, garbage) and disconnects (while a handler runs,
// while one ignores cancellation, in the middle of an event stream),
// against the listener and the handler. Every call a client waits for
// gets exactly one response, after its notifications; a handler whose
// client left sees its context end; nothing is written for a request
// after its client left; afterwards no request actor is left, the
// executor is idle and no message reached a stopped actor.
func TestPropertyHTTPNothingLost(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		testfixture.RunSeeded(t, testfixture.Seeds(t, 3), func(t *testing.T, seed uint64) {
			runHTTPProperty(t, tg, seed)
		})
	})
	goleak.VerifyNone(t)
}

func runHTTPProperty(t *testing.T, tg target, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed>>9))
	probe := testfixture.NewProbe()
	t.Cleanup(probe.ReleaseAll) // on failure, before the server closes
	rt, err := dispatch.New(mcp.Implementation{Name: "property", Version: "1"},
		append(probe.Options(), dispatch.WithLogger(slog.New(slog.DiscardHandler)))...)
	if err != nil {
		t.Fatal(err)
	}
	late := &lateWrites{tags: map[string]int{}}
	var ep *endpoint
	if tg.name == "handler" {
		ep = startRecordedHandler(t, rt, late)
	} else {
		ep = tg.start(t, rt)
	}
	workers := make([]*httpWorker, 2+rng.IntN(5))
	var wg sync.WaitGroup
	for i := range workers {
		w := &httpWorker{
			t:      t,
			rng:    rand.New(rand.NewPCG(rng.Uint64(), uint64(i))),
			client: &http.Client{Transport: &http.Transport{}},
			url:    ep.url,
			probe:  probe,
			name:   fmt.Sprintf("w%d", i),
		}
		workers[i] = w
		steps := 5 + rng.IntN(15)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.client.CloseIdleConnections()
			for range steps {
				w.step()
			}
		}()
	}
	wg.Wait()
	// Calls that ignored their cancellation finish now; nothing may be
	// written for them.
	probe.ReleaseAll()
	probe.WaitReturned(t)
	testkit.WaitNoRequests(t, ep.sup)
	testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return e != nil && e.Attrs["running"] == "0" && e.Attrs["queued"] == "0"
	})
	var abandoned, stubborn int
	for _, w := range workers {
		abandoned += len(w.disconnected)
		stubborn += len(w.stubborn)
		for _, tag := range w.disconnected {
			if n := late.count(tag); n != 0 {
				t.Errorf("%d writes for %s after its client left", n, tag)
			}
		}
	}
	if n := ep.sup.UnexpectedDeadLetters(); n != 0 {
		t.Errorf("%d unexpected dead letters", n)
	}
	t.Logf("%d clients, %d calls abandoned mid-flight (%d ignoring cancellation)", len(workers), abandoned, stubborn)
}
