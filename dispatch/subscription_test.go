package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func okTool(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.TextResult("ok"), nil
}

func okPrompt(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{}, nil
}

func okResource(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, Text: "x"}}}, nil
}

// fullRuntime serves a tool, a prompt and a resource, with src as its
// subscription source (none when nil).
func fullRuntime(t testing.TB, src dispatch.SubscriptionSource, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	all := []dispatch.Option{
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "t"}, okTool),
		dispatch.WithPrompt(mcp.Prompt{Name: "p"}, okPrompt),
		dispatch.WithResource(mcp.Resource{URI: "file:///a", Name: "a"}, okResource),
	}
	if src != nil {
		all = append(all, dispatch.WithSubscriptions(src))
	}
	return mustNew(t, append(all, opts...)...)
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

func newWaker() *waker { return &waker{ch: make(chan struct{}, 1)} }

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

func TestListenAcknowledgesFirstAndTagsEveryEvent(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt := fullRuntime(t, hub)
	w := newWaker()
	s := openStream(t, rt, "L1", map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a"}}, w)

	// Published before the acknowledgement is written: still after it.
	if r := hub.ToolsListChanged(); r.Matched != 1 {
		t.Fatalf("publish: %+v", r)
	}
	frame, last := next(t, s)
	ack := decodeFrame(t, frame)
	if last || ack.Method != "notifications/subscriptions/acknowledged" || string(ack.Params.Meta[mcp.MetaSubscriptionID]) != `"L1"` {
		t.Fatalf("first frame: %s", frame)
	}
	if got, _ := json.Marshal(ack.Params.Notifications); string(got) != `{"resourceSubscriptions":["file:///a"],"toolsListChanged":true}` {
		t.Fatalf("accepted: %s", got)
	}
	frame, _ = next(t, s)
	if ev := decodeFrame(t, frame); ev.Method != "notifications/tools/list_changed" || string(ev.Params.Meta[mcp.MetaSubscriptionID]) != `"L1"` {
		t.Fatalf("event: %s", frame)
	}
	if frame, last := s.Next(); frame != nil || last {
		t.Fatalf("idle stream returned %s last=%v", frame, last)
	}
	// An event the filter does not name never arrives; one it names wakes
	// the idle stream.
	if r := hub.PromptsListChanged(); r.Matched != 0 {
		t.Fatalf("prompts event matched a tools-only stream: %+v", r)
	}
	if r, err := hub.ResourceUpdated("file:///a"); err != nil || r.Matched != 1 || r.Delivered != 1 {
		t.Fatalf("resource update: %+v %v", r, err)
	}
	w.wait(t)
	frame, _ = next(t, s)
	if ev := decodeFrame(t, frame); ev.Method != "notifications/resources/updated" || ev.Params.URI != "file:///a" || string(ev.Params.Meta[mcp.MetaSubscriptionID]) != `"L1"` {
		t.Fatalf("update: %s", frame)
	}
	// Completion: the final result carries the id and serverInfo.
	if n := hub.Complete(); n != 1 {
		t.Fatalf("Complete ended %d streams", n)
	}
	frame, last = next(t, s)
	fin := decodeFrame(t, frame)
	if !last || fin.Result == nil || fin.Result.ResultType != "complete" || string(fin.ID) != `"L1"` ||
		string(fin.Result.Meta[mcp.MetaSubscriptionID]) != `"L1"` || fin.Result.Meta[mcp.MetaServerInfo] == nil {
		t.Fatalf("final: %s last=%v", frame, last)
	}
	if frame, last := s.Next(); frame != nil || !last {
		t.Fatalf("after the end: %s %v", frame, last)
	}
	if st := hub.Stats(); st.Listeners != 0 || st.Completed != 1 {
		t.Fatalf("hub stats after completion: %+v", st)
	}
}

func TestListenFilterValidation(t *testing.T) {
	rt := fullRuntime(t, hub.New(hub.Options{}))
	many := make([]string, 1000+1)
	for i := range many {
		many[i] = fmt.Sprintf("file:///r%d", i)
	}
	for name, notif := range map[string]any{
		"missing":            nil,
		"not an object":      []any{},
		"bool of wrong type": map[string]any{"toolsListChanged": "yes"},
		"uris not an array":  map[string]any{"resourceSubscriptions": "file:///a"},
		"uri not a string":   map[string]any{"resourceSubscriptions": []any{1}},
		"relative uri":       map[string]any{"resourceSubscriptions": []string{"a/b"}},
		"over 1,000 URIs":    map[string]any{"resourceSubscriptions": many},
		"empty uri":          map[string]any{"resourceSubscriptions": []string{""}},
	} {
		t.Run(name, func(t *testing.T) {
			params := map[string]any{}
			if notif != nil {
				params["notifications"] = notif
			}
			f := testfixture.Dispatch(t, rt, testkit.Request(1, dispatch.MethodListen, params))
			rpcError(t, f, jsonrpc.CodeInvalidParams)
		})
	}
	// Exactly 1,000 is fine; repeats are kept once.
	for _, tc := range []struct {
		uris []string
		want int
	}{
		{many[:1000], 1000},
		{[]string{"file:///a", "file:///b", "file:///a"}, 2},
	} {
		c, out := listenCall(t, rt, 1, map[string]any{"resourceSubscriptions": tc.uris})
		if c == nil {
			t.Fatalf("%d URIs refused: %s", len(tc.uris), out.Frame)
		}
		s, out := rt.OpenStream(context.Background(), c, func() {})
		if s == nil {
			t.Fatalf("open: %s", out.Frame)
		}
		if n := len(s.Accepted().ResourceSubscriptions); n != tc.want {
			t.Fatalf("accepted %d URIs, want %d", n, tc.want)
		}
		s.Close()
	}
}

func TestListenCapabilitiesFollowTheSource(t *testing.T) {
	// Without a source: no listChanged, no subscribe, and listen is unknown.
	rt := fullRuntime(t, nil)
	caps := rt.Capabilities()
	if caps.Tools.ListChanged || caps.Prompts.ListChanged || caps.Resources.ListChanged || caps.Resources.Subscribe {
		t.Fatalf("capabilities without a source: %+v %+v %+v", caps.Tools, caps.Prompts, caps.Resources)
	}
	rpcError(t, call(t, rt, dispatch.MethodListen, map[string]any{"notifications": map[string]any{}}), jsonrpc.CodeMethodNotFound)

	rt = fullRuntime(t, hub.New(hub.Options{}))
	caps = rt.Capabilities()
	if !caps.Tools.ListChanged || !caps.Prompts.ListChanged || !caps.Resources.ListChanged || !caps.Resources.Subscribe {
		t.Fatalf("capabilities with a hub: %+v %+v %+v", caps.Tools, caps.Prompts, caps.Resources)
	}
	disc := resultOf(t, call(t, rt, "server/discover", nil))
	if b, _ := json.Marshal(disc["capabilities"]); !strings.Contains(string(b), `"subscribe":true`) {
		t.Fatalf("discover: %s", b)
	}

	// A kind the server does not offer is left out of the acknowledgement.
	rt = mustNew(t, dispatch.WithTool(mcp.Tool{Name: "t"}, okTool), dispatch.WithSubscriptions(hub.New(hub.Options{})))
	if c := rt.Capabilities(); c.Prompts != nil || c.Resources != nil || !c.Tools.ListChanged {
		t.Fatalf("tools-only capabilities: %+v", c)
	}
	s := openStream(t, rt, 1, map[string]any{"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": []string{"file:///x"}}, newWaker())
	if got := s.Accepted(); !got.ToolsListChanged || got.PromptsListChanged || len(got.ResourceSubscriptions) != 0 {
		t.Fatalf("accepted: %+v", got)
	}
	frame, _ := next(t, s)
	if ack := decodeFrame(t, frame); len(ack.Params.Notifications) != 1 {
		t.Fatalf("ack: %s", frame)
	}
}

// fakeSource is a source whose behaviour each test sets.
type fakeSource struct {
	accept  func(mcp.SubscriptionFilter) mcp.SubscriptionFilter
	openErr error
	panicAt string // "open", "next" or "close"
	events  []dispatch.Event
	end     error

	mu     sync.Mutex
	closed int
	asked  mcp.SubscriptionFilter
	info   *dispatch.RequestInfo
}

func (s *fakeSource) OpenSubscription(ctx context.Context, req *dispatch.SubscriptionRequest) (dispatch.Subscription, mcp.SubscriptionFilter, error) {
	s.mu.Lock()
	s.asked, s.info = req.Filter, dispatch.RequestInfoFromContext(ctx)
	s.mu.Unlock()
	if s.panicAt == "open" {
		panic("open exploded")
	}
	acc := req.Filter
	if s.accept != nil {
		acc = s.accept(req.Filter)
	}
	return &fakeSub{s: s, events: s.events}, acc, s.openErr
}

func (s *fakeSource) closes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

type fakeSub struct {
	s      *fakeSource
	events []dispatch.Event
}

func (f *fakeSub) Next() (dispatch.Event, error) {
	if f.s.panicAt == "next" {
		panic("next exploded")
	}
	if len(f.events) == 0 {
		if f.s.end != nil {
			return dispatch.Event{}, f.s.end
		}
		return dispatch.Event{}, dispatch.ErrNoEvent
	}
	ev := f.events[0]
	f.events = f.events[1:]
	return ev, nil
}

func (f *fakeSub) Close() {
	f.s.mu.Lock()
	f.s.closed++
	f.s.mu.Unlock()
	if f.s.panicAt == "close" {
		panic("close exploded")
	}
}

// capture is a logger that records what it is given.
func capture() (*slog.Logger, *bytes.Buffer, *sync.Mutex) {
	var buf bytes.Buffer
	var mu sync.Mutex
	return slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil)), &buf, &mu
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSourceThatAcceptsMoreThanAskedIsRefused(t *testing.T) {
	src := &fakeSource{accept: func(f mcp.SubscriptionFilter) mcp.SubscriptionFilter {
		f.PromptsListChanged = true
		return f
	}}
	rt := fullRuntime(t, src)
	c, _ := listenCall(t, rt, 5, map[string]any{"toolsListChanged": true})
	s, out := rt.OpenStream(context.Background(), c, func() {})
	if s != nil {
		t.Fatal("a source accepting more than asked was let through")
	}
	var f wireFrame
	if json.Unmarshal(out.Frame, &f); f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError || string(f.ID) != "5" {
		t.Fatalf("outcome: %s", out.Frame)
	}
	if src.closes() != 1 {
		t.Fatalf("the refused feed was closed %d times, want 1", src.closes())
	}
	// Also a URI it was not asked for.
	src.accept = func(f mcp.SubscriptionFilter) mcp.SubscriptionFilter {
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, "file:///other")
		return f
	}
	c, _ = listenCall(t, rt, 6, map[string]any{"resourceSubscriptions": []string{"file:///a"}})
	if s, _ := rt.OpenStream(context.Background(), c, func() {}); s != nil {
		t.Fatal("a source accepting an extra URI was let through")
	}
}

func TestSourceErrorsAndPanicsAreIsolated(t *testing.T) {
	logger, buf, mu := capture()
	for _, tc := range []struct {
		name     string
		src      *fakeSource
		code     int64
		atOpen   bool
		wantLogs string
	}{
		{"open returns a JSON-RPC error", &fakeSource{openErr: &jsonrpc.Error{Code: -31000, Message: "not today"}}, -31000, true, ""},
		{"open returns another error", &fakeSource{openErr: errors.New("db down")}, jsonrpc.CodeInternalError, true, "db down"},
		{"open panics", &fakeSource{panicAt: "open"}, jsonrpc.CodeInternalError, true, "open exploded"},
		{"next panics", &fakeSource{panicAt: "next"}, jsonrpc.CodeInternalError, false, "next exploded"},
		{"next fails", &fakeSource{end: errors.New("feed broke")}, jsonrpc.CodeInternalError, false, "feed broke"},
		{"close panics after completion", &fakeSource{panicAt: "close", end: dispatch.ErrSubscriptionComplete}, 0, false, "close exploded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			buf.Reset()
			mu.Unlock()
			rt := fullRuntime(t, tc.src, dispatch.WithLogger(logger))
			c, _ := listenCall(t, rt, 9, map[string]any{"toolsListChanged": true})
			s, out := rt.OpenStream(context.Background(), c, func() {})
			var final []byte
			if tc.atOpen {
				if s != nil {
					t.Fatal("opened")
				}
				final = out.Frame
			} else {
				if s == nil {
					t.Fatalf("open: %s", out.Frame)
				}
				if f, last := next(t, s); last || f == nil {
					t.Fatal("no acknowledgement")
				}
				var last bool
				final, last = next(t, s)
				if !last {
					t.Fatalf("stream went on: %s", final)
				}
			}
			if err := testkit.ValidateFrame(testfixture.Version, final, dispatch.MethodListen); err != nil {
				t.Fatalf("%v: %s", err, final)
			}
			f := decodeFrame(t, final)
			switch {
			case tc.code == 0 && (f.Result == nil || f.Result.ResultType != "complete"):
				t.Fatalf("want a final result: %s", final)
			case tc.code != 0 && (f.Error == nil || f.Error.Code != tc.code):
				t.Fatalf("want error %d: %s", tc.code, final)
			}
			if tc.src.panicAt != "open" && tc.src.closes() != 1 {
				t.Fatalf("feed closed %d times, want 1", tc.src.closes())
			}
			mu.Lock()
			logs := buf.String()
			mu.Unlock()
			if tc.wantLogs != "" && !strings.Contains(logs, tc.wantLogs) {
				t.Fatalf("the logger did not get %q:\n%s", tc.wantLogs, logs)
			}
			if tc.wantLogs != "" && strings.Contains(string(final), tc.wantLogs) {
				t.Fatalf("the client saw internal details: %s", final)
			}
		})
	}
}

func TestEventsTheFilterDoesNotNameAreNeverSent(t *testing.T) {
	src := &fakeSource{events: []dispatch.Event{
		{Kind: dispatch.EventPromptsListChanged},
		{Kind: dispatch.EventResourceUpdated, URI: "file:///b"},
		{Kind: dispatch.EventResourcesListChanged},
		{Kind: dispatch.EventResourceUpdated, URI: "not absolute"},
		{Kind: dispatch.EventToolsListChanged},
		{Kind: dispatch.EventResourceUpdated, URI: "file:///a/x", Subscribed: "file:///a"},
	}}
	rt := fullRuntime(t, src)
	s := openStream(t, rt, 3, map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a"}}, newWaker())
	next(t, s) // acknowledgement
	var got []string
	for {
		f, last := next(t, s)
		if f == nil || last {
			break
		}
		ev := decodeFrame(t, f)
		got = append(got, ev.Method+" "+ev.Params.URI)
	}
	want := []string{"notifications/tools/list_changed ", "notifications/resources/updated file:///a/x"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %q, want %q", got, want)
	}
}

func TestCloseClosesTheFeedOnceAndEndsTheStream(t *testing.T) {
	src := &fakeSource{}
	rt := fullRuntime(t, src)
	s := openStream(t, rt, 1, map[string]any{"toolsListChanged": true}, newWaker())
	next(t, s)
	s.Close()
	s.Close()
	if f, last := s.Next(); f != nil || !last {
		t.Fatalf("after Close: %s %v", f, last)
	}
	s.Complete()
	if f, last := s.Next(); f != nil || !last {
		t.Fatalf("Complete after Close: %s %v", f, last)
	}
	if n := src.closes(); n != 1 {
		t.Fatalf("feed closed %d times", n)
	}
	if src.info == nil || src.info.Method != dispatch.MethodListen {
		t.Fatalf("the source did not see the request: %+v", src.info)
	}
}

func TestCompleteEndsTheStreamWithItsResult(t *testing.T) {
	src := &fakeSource{events: []dispatch.Event{{Kind: dispatch.EventToolsListChanged}}}
	rt := fullRuntime(t, src)
	// Completed before anything was written: the acknowledgement still
	// comes first, then the result; the pending event is not sent.
	s := openStream(t, rt, int64(42), map[string]any{"toolsListChanged": true}, newWaker())
	s.Complete()
	if f, last := next(t, s); last || decodeFrame(t, f).Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first frame after Complete: %s", f)
	}
	final, last := next(t, s)
	if f := decodeFrame(t, final); !last || f.Result == nil || string(f.Result.Meta[mcp.MetaSubscriptionID]) != "42" {
		t.Fatalf("final: %s", final)
	}
	if src.closes() != 1 {
		t.Fatal("Complete did not close the feed")
	}
	s.Complete()
	if f, last := s.Next(); f != nil || !last {
		t.Fatal("a second Complete wrote another result")
	}
}

func TestAuthorizerLimitsResourceSubscriptions(t *testing.T) {
	src := &fakeSource{}
	rt := fullRuntime(t, src, dispatch.WithAuthorizer(dispatch.AuthorizerFunc(func(_ context.Context, a *dispatch.Access) error {
		if a.Kind == dispatch.KindResource && strings.HasSuffix(a.URI, "secret") {
			return dispatch.ErrConceal
		}
		return nil
	})))
	s := openStream(t, rt, 1, map[string]any{"resourceSubscriptions": []string{"file:///open", "file:///secret"}}, newWaker())
	if got := s.Accepted().ResourceSubscriptions; len(got) != 1 || got[0] != "file:///open" {
		t.Fatalf("accepted %v", got)
	}
	if got := src.asked.ResourceSubscriptions; len(got) != 1 {
		t.Fatalf("the source was asked for %v", got)
	}
}

// recordingNotifier records the frames Execute's listen sends and runs
// after on each.
type recordingNotifier struct {
	mu     sync.Mutex
	frames [][]byte
	after  func(n int)
}

func (r *recordingNotifier) Notify(_ context.Context, frame []byte) error {
	r.mu.Lock()
	r.frames = append(r.frames, frame)
	n := len(r.frames)
	r.mu.Unlock()
	if r.after != nil {
		r.after(n)
	}
	return nil
}

func TestListenThroughExecute(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt := fullRuntime(t, hub)
	rec := &recordingNotifier{}
	published := make(chan struct{})
	rec.after = func(n int) {
		if n == 1 {
			// The acknowledgement is sent once the source has opened the
			// feed, so the hub counts the listener by now.
			if l := hub.Stats().Listeners; l != 1 {
				t.Errorf("listeners when the acknowledgement is sent: %d, want 1", l)
			}
			// Published from another goroutine while the stream idles.
			go func() {
				defer close(published)
				hub.ToolsListChanged()
				hub.Complete()
			}()
		}
	}
	f := callWith(t, rt, dispatch.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}},
		func(r *dispatch.Request) { r.Notifier = rec })
	select {
	case <-published:
	case <-time.After(10 * time.Second):
		t.Fatalf("the stream ended before the acknowledgement's publisher ran: %s", f.Raw)
	}
	res := resultOf(t, f)
	if res["resultType"] != "complete" {
		t.Fatalf("result: %s", f.Raw)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.frames) < 1 || !strings.Contains(string(rec.frames[0]), "acknowledged") {
		t.Fatalf("frames: %q", rec.frames)
	}
	for _, fr := range rec.frames {
		if err := testkit.ValidateFrame(testfixture.Version, fr, ""); err != nil {
			t.Fatal(err)
		}
	}
	// Without a way to stream, listen is refused rather than hanging.
	rpcError(t, call(t, rt, dispatch.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}), jsonrpc.CodeInternalError)
}

func TestListenThroughExecuteEndsOnDrain(t *testing.T) {
	rt := fullRuntime(t, hub.New(hub.Options{}))
	c, _ := listenCall(t, rt, 1, map[string]any{"toolsListChanged": true})
	drain := make(chan struct{})
	c.Notifier = &recordingNotifier{after: func(int) { close(drain) }}
	out := rt.Execute(dispatch.ContextWithDrain(context.Background(), drain), c)
	if err := testkit.ValidateFrame(testfixture.Version, out.Frame, dispatch.MethodListen); err != nil || out.ErrorCode != 0 {
		t.Fatalf("%v: %s", err, out.Frame)
	}
}

func TestEncodeEventForSessionsHasNoSubscriptionID(t *testing.T) {
	for _, ev := range []dispatch.Event{
		{Kind: dispatch.EventToolsListChanged}, {Kind: dispatch.EventPromptsListChanged},
		{Kind: dispatch.EventResourcesListChanged}, {Kind: dispatch.EventResourceUpdated, URI: "file:///\u00e9"},
	} {
		b, err := dispatch.EncodeEvent(ev, jsonrpc.ID{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"2025-11-25", "2025-06-18", "2026-07-28"} {
			if err := testkit.ValidateFrame(v, b, ""); err != nil {
				t.Fatalf("%s: %v: %s", v, err, b)
			}
		}
		if bytes.Contains(b, []byte("subscriptionId")) || bytes.ContainsFunc(b, func(r rune) bool { return r > 0x7f }) {
			t.Fatalf("untagged frame: %s", b)
		}
	}
	if _, err := dispatch.EncodeEvent(dispatch.Event{Kind: dispatch.EventResourceUpdated}, jsonrpc.IntID(1)); !errors.Is(err, dispatch.ErrInvalidEvent) {
		t.Fatalf("resource update without a URI: %v", err)
	}
}
