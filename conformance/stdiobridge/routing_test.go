package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// The tests below cover the routing of the stateless bridge, whose
// requests share one stdio server.

// listenSocket makes the test children report to a unix socket.
func listenSocket(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "words.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	t.Setenv(cancelSocketEnv, ln.Addr().String())
	return ln
}

// rawCall is a tools/call with the id and progress token spelled exactly
// as given, and its mirrored headers.
func rawCall(id, token, tool string) ([]byte, http.Header) {
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if token != "" {
		meta += `,"progressToken":` + token
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{%s}}}`, id, tool, meta)
	h := http.Header{}
	h.Set("MCP-Protocol-Version", mcp.Version20260728)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", tool)
	return []byte(body), h
}

// stream is an HTTP response read one event at a time.
type stream struct {
	resp *http.Response
	r    *bufio.Reader
}

// open posts a request and returns its response unread.
func (e *env) open(ctx context.Context, body []byte, h http.Header) *stream {
	e.t.Helper()
	resp := e.do(ctx, http.MethodPost, body, h)
	e.t.Cleanup(func() { resp.Body.Close() })
	return &stream{resp: resp, r: bufio.NewReader(resp.Body)}
}

// rest reads the stream to its end and returns its events.
func (s *stream) rest(t *testing.T) []rpc {
	t.Helper()
	b, err := io.ReadAll(s.r)
	if err != nil {
		t.Fatal(err)
	}
	var out []rpc
	for _, ev := range events(b) {
		out = append(out, decode(t, ev))
	}
	return out
}

func methods(evs []rpc) string {
	var m []string
	for _, ev := range evs {
		if ev.Method == "" {
			m = append(m, "result:"+string(ev.ID))
		} else {
			m = append(m, ev.Method)
		}
	}
	return strings.Join(m, ",")
}

func field(t *testing.T, raw json.RawMessage, path ...string) string {
	t.Helper()
	return string(pathValue(raw, path...))
}

// The stdio server sees ids and progress tokens of the bridge's own; the
// client gets its own back byte for byte, whether string or number.
func TestIDsAndTokensAreRemappedAndRestored(t *testing.T) {
	e := startBridge(t, false, "scripted")
	seen := regexp.MustCompile(`^id=(\d+) token=(\d+)$`)
	childIDs := map[string]bool{}
	for _, tc := range []struct{ id, token string }{
		{`"req-\u00e9 1"`, `"tok"`},
		{`-17`, `0`},
		{`1`, `"1"`},
		{`"1"`, `1`},
	} {
		body, h := rawCall(tc.id, tc.token, "seen")
		resp, b := e.post(body, h)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("id %s: %d %s", tc.id, resp.StatusCode, b)
		}
		if got := string(memberValue(b, "id")); got != tc.id {
			t.Errorf("response id %s, want %s exactly", got, tc.id)
		}
		var text string
		_ = json.Unmarshal(pathValue(b, "result", "content"), &[]struct {
			Text *string `json:"text"`
		}{{Text: &text}})
		m := seen.FindStringSubmatch(text)
		if m == nil || m[1] != m[2] {
			t.Fatalf("id %s: the stdio server saw %q, want the bridge's number as id and token", tc.id, text)
		}
		if childIDs[m[1]] {
			t.Errorf("the bridge's id %s was used twice", m[1])
		}
		childIDs[m[1]] = true
		if err := testkit.ValidateFrame(testfixture.Version, b, "tools/call"); err != nil {
			t.Errorf("relayed frame: %v", err)
		}
	}
}

// Responses the stdio server writes out of order reach the requests that
// sent them, with each client's id.
func TestConcurrentResponsesOutOfOrder(t *testing.T) {
	ln := listenSocket(t)
	e := startBridge(t, false, "scripted")
	ids := []string{`"h0"`, `1`, `"h2"`, `3`, `"1"`}
	type answer struct{ id, body string }
	answers := make(chan answer, len(ids))
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, h := rawCall(id, "", "hold")
			req, _ := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(body))
			req.Header = h
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := e.client.Do(req)
			if err != nil {
				answers <- answer{id, err.Error()}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answers <- answer{id, string(b)}
		}()
	}
	for range ids {
		if w, err := awaitWord(ln, testkit.DefaultTimeout); err != nil || !strings.HasPrefix(w, "held ") {
			t.Fatalf("a call was not held: %q %v", w, err)
		}
	}
	body, h := rawCall(`"r"`, "", "release")
	if resp, b := e.post(body, h); resp.StatusCode != 200 || string(memberValue(b, "id")) != `"r"` {
		t.Fatalf("release: %d %s", resp.StatusCode, b)
	}
	wg.Wait()
	close(answers)
	childIDs := map[string]bool{}
	for a := range answers {
		b := []byte(a.body)
		if got := string(memberValue(b, "id")); got != a.id {
			t.Errorf("request %s got %s", a.id, a.body)
			continue
		}
		text := string(pathValue(b, "result", "content"))
		i := strings.Index(text, "released ")
		if i < 0 {
			t.Errorf("request %s got %s", a.id, a.body)
			continue
		}
		childIDs[text[i:]] = true
	}
	if len(childIDs) != len(ids) {
		t.Errorf("%d distinct answers for %d requests", len(childIDs), len(ids))
	}
}

// Progress goes to the request whose token it carries, even when two
// requests in flight chose the same token.
func TestProgressRoutesByToken(t *testing.T) {
	e := startBridge(t, false, "snodo")
	body, h := request2026("b", "tools/call", map[string]any{"name": "gate", "_meta": map[string]any{"progressToken": "same"}})
	b := e.open(context.Background(), body, h)
	if ev := decode(t, readEvent(t, b.r)); ev.Method != "notifications/progress" || field(t, ev.Params, "progressToken") != `"same"` {
		t.Fatalf("first event of the gated call: %+v", ev)
	}
	body, h = request2026("a", "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "same"}})
	a := e.open(context.Background(), body, h)
	evs := a.rest(t)
	if methods(evs) != `notifications/progress,notifications/progress,result:"a"` {
		t.Fatalf("events of the second call: %s", methods(evs))
	}
	for i, ev := range evs[:2] {
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": ev.Method, "params": ev.Params})
		if field(t, ev.Params, "progressToken") != `"same"` || field(t, ev.Params, "progress") != fmt.Sprint(i+1) {
			t.Errorf("progress %d: %s", i, ev.Params)
		}
		if err := testkit.ValidateFrame(testfixture.Version, raw, ""); err != nil {
			t.Errorf("progress %d: %v", i, err)
		}
	}
	body, h = request2026("o", "tools/call", map[string]any{"name": "open"})
	if resp, out := e.post(body, h); resp.StatusCode != 200 {
		t.Fatalf("open: %d %s", resp.StatusCode, out)
	}
	if got := methods(b.rest(t)); got != `result:"b"` {
		t.Errorf("the gated call went on with %s, want its result only", got)
	}
}

// A log message goes to the request that asked for logs, never to one
// that did not, even an older one in flight.
func TestLogMessagesGoToTheRequestThatAskedForThem(t *testing.T) {
	e := startBridge(t, false, "snodo")
	body, h := request2026("quiet", "tools/call", map[string]any{"name": "gate", "_meta": map[string]any{"progressToken": 1}})
	quiet := e.open(context.Background(), body, h)
	if ev := decode(t, readEvent(t, quiet.r)); ev.Method != "notifications/progress" || field(t, ev.Params, "progressToken") != `1` {
		t.Fatalf("first event of the gated call: %+v", ev)
	}
	body, h = request2026("loud", "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": 2, mcp.MetaLogLevel: "info"}})
	evs := e.open(context.Background(), body, h).rest(t)
	if methods(evs) != `notifications/progress,notifications/progress,notifications/message,result:"loud"` {
		t.Fatalf("events of the call that asked for logs: %s", methods(evs))
	}
	body, h = request2026("o", "tools/call", map[string]any{"name": "open"})
	if resp, out := e.post(body, h); resp.StatusCode != 200 {
		t.Fatalf("open: %d %s", resp.StatusCode, out)
	}
	if got := methods(quiet.rest(t)); got != `result:"quiet"` {
		t.Errorf("the call without logLevel went on with %s, want its result only", got)
	}
}

// Listen-stream notifications go to the stream their subscription id
// names, with the client's id as subscription id; a list change one
// request makes reaches the streams others hold.
func TestListenStreamsRouteBySubscriptionID(t *testing.T) {
	e := startBridge(t, false, "snodo")
	listen := func(ctx context.Context, id any) *stream {
		body, h := request2026(id, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		s := e.open(ctx, body, h)
		if ct := s.resp.Header.Get("Content-Type"); s.resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("listen %v: %d %s", id, s.resp.StatusCode, ct)
		}
		return s
	}
	expect := func(s *stream, method, sub string) {
		t.Helper()
		frame := readEvent(t, s.r)
		ev := decode(t, frame)
		if ev.Method != method || field(t, ev.Params, "_meta", mcp.MetaSubscriptionID) != sub {
			t.Fatalf("event %s, want %s for subscription %s", frame, method, sub)
		}
		if err := testkit.ValidateFrame(testfixture.Version, frame, ""); err != nil {
			t.Errorf("%s: %v", frame, err)
		}
	}
	trigger := func() {
		t.Helper()
		body, h := request2026("t", "tools/call", map[string]any{"name": "trigger"})
		if resp, b := e.post(body, h); resp.StatusCode != 200 || string(memberValue(b, "id")) != `"t"` {
			t.Fatalf("trigger: %d %s", resp.StatusCode, b)
		}
	}
	ctxL1, cancelL1 := context.WithCancel(context.Background())
	defer cancelL1()
	ctx7, cancel7 := context.WithCancel(context.Background())
	defer cancel7()
	l1, l7 := listen(ctxL1, "L1"), listen(ctx7, 7)
	expect(l1, "notifications/subscriptions/acknowledged", `"L1"`)
	expect(l7, "notifications/subscriptions/acknowledged", `7`)
	trigger()
	expect(l1, "notifications/tools/list_changed", `"L1"`)
	expect(l7, "notifications/tools/list_changed", `7`)

	// A stream the client leaves is cancelled; the other goes on.
	cancelL1()
	if _, err := io.ReadAll(l1.r); err == nil {
		t.Error("the cancelled stream read to a clean end")
	}
	trigger()
	expect(l7, "notifications/tools/list_changed", `7`)
}

// A client that goes away has its request cancelled in the stdio server
// under the bridge's id, and what the server writes for it afterwards is
// dropped: the next request gets its own answer.
func TestDisconnectCancelsAndDropsLateFrames(t *testing.T) {
	ln := listenSocket(t)
	e := startBridge(t, false, "scripted")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		body, h := rawCall(`"x"`, `"t"`, "hang")
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
		req.Header = h
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if resp, err := e.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	w, err := awaitWord(ln, testkit.DefaultTimeout)
	if err != nil || !strings.HasPrefix(w, "hanging ") {
		t.Fatalf("the call did not reach the stdio server: %q %v", w, err)
	}
	childID := strings.TrimPrefix(w, "hanging ")
	if childID == `"x"` {
		t.Fatal("the stdio server saw the client's id")
	}
	cancel()
	<-done
	for _, want := range []string{"got notifications/cancelled " + childID, "cancelled " + childID} {
		if w, err := awaitWord(ln, testkit.DefaultTimeout); err != nil || w != want {
			t.Fatalf("the stdio server said %q (%v), want %q", w, err, want)
		}
	}
	body, h := rawCall(`"x"`, `"t"`, "seen")
	resp, b := e.post(body, h)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(b), "id=") {
		t.Fatalf("the next request got %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}

// A notification or response a client posts gets 202 and never reaches
// the shared stdio server (its ids are the bridge's, not the client's);
// an initialize-era initialize, which would make the shared server one
// client's session, is refused.
func TestClientMessagesThatWouldReachOtherClientsStayOut(t *testing.T) {
	ln := listenSocket(t)
	e := startBridge(t, false, "scripted")
	ctx, cancel := context.WithCancel(context.Background())
	var calls sync.WaitGroup
	defer calls.Wait()
	defer cancel() // first: it ends the calls
	hang := func(id string) {
		body, h := rawCall(id, "", "hang")
		calls.Add(1)
		go func() {
			defer calls.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
			req.Header = h
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if resp, err := e.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	hang(`"x"`)
	w, err := awaitWord(ln, testkit.DefaultTimeout)
	if err != nil || !strings.HasPrefix(w, "hanging ") {
		t.Fatalf("the call did not reach the stdio server: %q %v", w, err)
	}
	childID := strings.TrimPrefix(w, "hanging ")
	for _, msg := range [][]byte{
		testkit.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(childID)}),
		[]byte(`{"jsonrpc":"2.0","id":` + childID + `,"result":{}}`),
	} {
		if resp, b := e.post(msg, nil); resp.StatusCode != 202 || len(b) != 0 {
			t.Errorf("%s: %d %s", msg, resp.StatusCode, b)
		}
	}
	initialize := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp, b := e.post(initialize, http.Header{"Mcp-Method": {"initialize"}}); resp.StatusCode != 400 || decode(t, b).Error.Code != -32600 {
		t.Errorf("initialize-era initialize: %d %s", resp.StatusCode, b)
	}
	// The stdio server reads in order: had anything above reached it, it
	// would have spoken before this call's start.
	hang(`"y"`)
	if w, err := awaitWord(ln, testkit.DefaultTimeout); err != nil || !strings.HasPrefix(w, "hanging ") {
		t.Fatalf("the stdio server said %q (%v), want the second call's start", w, err)
	}
	cancel() // both calls are cancelled under the bridge's ids
	for range 2 {
		if w, err := awaitWord(ln, testkit.DefaultTimeout); err != nil || !strings.HasPrefix(w, "got notifications/cancelled ") {
			t.Fatalf("after the disconnects the stdio server said %q (%v)", w, err)
		}
		_, _ = awaitWord(ln, testkit.DefaultTimeout) // its "cancelled" word
	}
}

// The reader never waits for a client: past maxQueued waiting
// notifications delivery fails (the reader then cancels the request),
// while the final response always fits, and nothing is queued for a
// client that has gone.
func TestDeliveryNeverWaits(t *testing.T) {
	x := &exchange{items: make(chan item, maxQueued+1), gone: make(chan struct{})}
	for i := range maxQueued {
		if !x.deliver(item{frame: []byte("{}")}) {
			t.Fatalf("notification %d refused below the bound", i)
		}
	}
	if x.deliver(item{frame: []byte("{}")}) {
		t.Fatal("a notification past the bound was queued")
	}
	if !x.deliver(item{frame: []byte("{}"), final: true}) {
		t.Fatal("the final response did not fit")
	}
	x.abandon()
	if !x.deliver(item{frame: []byte("{}")}) || len(x.items) != maxQueued+1 {
		t.Fatalf("after the client left: %d queued", len(x.items))
	}
}
