package backplane_test

// Initialize-era sessions across instances: a session created on one
// instance is used, streamed, answered and deleted through the others,
// and the relay's failures are the specified ones.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// bigText is the result of the tool "big": 1.5 MiB, many relay chunks.
var bigText = func() string {
	b := make([]byte, 3<<19)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)[:3<<19]
}()

// waitEnded receives the name of the instance whose tool "wait" saw its
// context end (the tests using it do not run in parallel).
var waitEnded = make(chan string, 8)

// waitStarted receives the name of the instance whose tool "wait" runs.
var waitStarted = make(chan string, 8)

// startSessions runs instances with sessions and the relay, each with the
// tools "whoami", "ask_name" (elicits), "big" and "wait" (until its
// context ends).
func startSessions(t *testing.T, n int, relay backplane.SessionsConfig, listener ...streamablehttp.ListenerOption) *clustertest.Cluster {
	t.Helper()
	form := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	return clustertest.Start(t, clustertest.Config{
		Instances:    n,
		Sessions:     &streamablehttp.SessionConfig{BindPrincipal: true},
		SessionRelay: relay,
		Listener:     listener,
		Options: func(in *clustertest.Instance) []dispatch.Option {
			return []dispatch.Option{
				dispatch.WithTool(mcp.Tool{Name: "whoami"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.TextResult(in.Name), nil
				}),
				dispatch.WithTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
					waitStarted <- in.Name
					<-ctx.Done()
					waitEnded <- in.Name
					return nil, ctx.Err()
				}),
				dispatch.WithTool(mcp.Tool{Name: "big"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.TextResult(bigText), nil
				}),
				dispatch.WithTool(mcp.Tool{Name: "ask_name"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
					ans, ok := req.Input.Elicitation("name")
					if !ok {
						return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"name": mcp.ElicitForm("Your name?", form)}}
					}
					return mcp.TextResult(fmt.Sprintf("hello %v from %s", ans.Content["name"], in.Name)), nil
				}),
			}
		},
	})
}

// through returns a copy of s that sends its requests to instance in.
func through(s *testfixture.HTTPSession, in *clustertest.Instance) *testfixture.HTTPSession {
	c := *s
	c.URL = in.Server.URL()
	return &c
}

// toolText returns the text of a tools/call result frame.
func toolText(t *testing.T, f *testkit.Frame) string {
	t.Helper()
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if f == nil || f.Error != nil || json.Unmarshal(f.Result, &res) != nil || len(res.Content) != 1 {
		t.Fatalf("tools/call result: %v", f)
	}
	return res.Content[0].Text
}

// send sends a request with no body to url with the session's headers.
func send(t *testing.T, ctx context.Context, s *testfixture.HTTPSession, method string, edit func(*http.Request)) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", s.ID)
	req.Header.Set("Mcp-Protocol-Version", s.Version)
	req.Header.Set("Accept", "text/event-stream")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestSessionServedThroughEveryInstance: a 2025-11-25 session created on
// one instance is used through the round-robin proxy and through each
// other instance: a JSON response, an event stream carrying a
// server-to-client request answered through a third instance, the GET
// stream, and DELETE, which ends the GET stream held through another.
func TestSessionServedThroughEveryInstance(t *testing.T) {
	cl := startSessions(t, 3, backplane.SessionsConfig{})
	a, b, c := cl.Instances[0], cl.Instances[1], cl.Instances[2]
	s := testfixture.OpenHTTPSession(t, a.Server.URL(), mcp.Version20251125, map[string]any{"elicitation": map[string]any{}})
	if !strings.HasPrefix(s.ID, "i0.") {
		t.Fatalf("session id %q does not name its owner i0", s.ID)
	}
	// Through the proxy, each request on the next instance.
	viaProxy := *s
	viaProxy.URL = cl.URL()
	before := []int64{a.Served(), b.Served(), c.Served()}
	for i := range 6 {
		if got := toolText(t, viaProxy.Call(t, 10+i, "tools/call", map[string]any{"name": "whoami"})); got != "i0" {
			t.Fatalf("call %d ran on %s, not the session's owner", i, got)
		}
	}
	// Each instance's listener read two of the six; the owner ran the
	// four the others relayed without its listener.
	if d := []int64{a.Served() - before[0], b.Served() - before[1], c.Served() - before[2]}; d[0] != 2 || d[1] != 2 || d[2] != 2 {
		t.Fatalf("requests read per instance: %v, want [2 2 2]", d)
	}

	// An event stream through B carries the owner's elicitation; the
	// answer goes through C.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	req, err := through(s, b).NewRequest(ctx, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask_name"}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("tools/call through B: %d %s", resp.StatusCode, ct)
	}
	sr := testfixture.NewSSEReader(resp.Body)
	next := func(method string) *testkit.Frame {
		t.Helper()
		for {
			data, comment, err := sr.Next()
			if err != nil {
				t.Fatalf("reading event: %v", err)
			}
			if !comment && len(data) > 0 {
				return testfixture.CheckFrameVersion(t, data, method, s.Version)
			}
		}
	}
	ask := next("")
	if ask.Method != "elicitation/create" || ask.ID == nil {
		t.Fatalf("first event: %s", ask.Raw)
	}
	if r := through(s, c).Post(t, testfixture.Response(ask.ID, map[string]any{"action": "accept", "content": map[string]any{"name": "Lin"}}, 0), nil); r.Status != http.StatusAccepted {
		t.Fatalf("answer through C: %d %s", r.Status, r.Body)
	}
	if got := toolText(t, next("tools/call")); got != "hello Lin from i0" {
		t.Fatalf("result: %q", got)
	}
	if _, _, err := sr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream did not end after the result: %v", err)
	}

	// The GET stream through C; DELETE through B ends it.
	get := send(t, ctx, through(s, c), http.MethodGet, nil)
	if ct := get.Header.Get("Content-Type"); get.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("GET through C: %d %s", get.StatusCode, ct)
	}
	gr := testfixture.NewSSEReader(get.Body)
	if del := send(t, ctx, through(s, b), http.MethodDelete, nil); del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE through B: %d", del.StatusCode)
	}
	for {
		if _, _, err := gr.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("the GET stream ended with %v, not its end", err)
			}
			break
		}
	}
	if gr.Retry() == "" {
		t.Fatal("the GET stream's priming event was not relayed")
	}
	if r := through(s, c).Post(t, testfixture.LegacyRequest(2, "ping", nil), nil); r.Status != http.StatusNotFound {
		t.Fatalf("ping after DELETE, through C: %d %s", r.Status, r.Body)
	}
}

// TestSessionOfStoppedOwnerIsNotFound: once the owner is stopped, its
// sessions get 404 through the others, as unknown sessions do, at once.
func TestSessionOfStoppedOwnerIsNotFound(t *testing.T) {
	cl := startSessions(t, 2, backplane.SessionsConfig{OpenTimeout: time.Minute})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	if r := through(s, cl.Instances[1]).Post(t, testfixture.LegacyRequest(1, "ping", nil), nil); r.Status != 200 {
		t.Fatalf("ping through i1: %d %s", r.Status, r.Body)
	}
	cl.Instances[0].Stop(t)
	start := time.Now()
	r := through(s, cl.Instances[1]).Post(t, testfixture.LegacyRequest(2, "ping", nil), nil)
	if r.Status != http.StatusNotFound || r.Last() == nil || r.Last().Error == nil || !strings.Contains(r.Last().Error.Message, "session not found") {
		t.Fatalf("ping of a stopped owner's session: %d %s", r.Status, r.Body)
	}
	// Not the open timeout: NATS says at once that nothing listens.
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("404 after %s", d)
	}
}

// TestSessionRelayBounds: with one relay allowed, a GET stream relayed
// from i1 to i0 holds both bounds; another request through i1 gets 503
// from i1, one through i2 gets 503 from the owner.
func TestSessionRelayBounds(t *testing.T) {
	cl := startSessions(t, 3, backplane.SessionsConfig{MaxRelays: 1})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	get := send(t, ctx, through(s, cl.Instances[1]), http.MethodGet, nil)
	if get.StatusCode != 200 {
		t.Fatalf("GET through i1: %d", get.StatusCode)
	}
	for _, tc := range []struct {
		in   *clustertest.Instance
		want string
	}{
		{cl.Instances[1], "on this instance"},
		{cl.Instances[2], "on the session's instance"},
	} {
		r := through(s, tc.in).Post(t, testfixture.LegacyRequest(1, "ping", nil), nil)
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(string(r.Body), tc.want) {
			t.Errorf("ping through %s while the relay bound is taken: %d %s", tc.in.Name, r.Status, r.Body)
		}
	}
	// The owner's own requests are not relays.
	if r := s.Post(t, testfixture.LegacyRequest(2, "ping", nil), nil); r.Status != 200 {
		t.Fatalf("ping on the owner: %d %s", r.Status, r.Body)
	}
}

// TestSessionPrincipalBindingAcrossInstances: the Authorization header is
// relayed and the owner derives the principal from it: the session's
// principal is served through another instance, another principal gets
// 404 as in one process.
func TestSessionPrincipalBindingAcrossInstances(t *testing.T) {
	cl := startSessions(t, 2, backplane.SessionsConfig{},
		streamablehttp.WithPrincipal(func(r *http.Request) any { return r.Header.Get("Authorization") }))
	as := func(token string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", token) }
	}
	s := &testfixture.HTTPSession{URL: cl.Instances[0].Server.URL(), Client: http.DefaultClient, Version: mcp.Version20251125}
	s.Init = s.Post(t, testfixture.Initialize(0, s.Version, nil), func(r *http.Request) { as("Bearer alice")(r); r.Header.Del("Mcp-Protocol-Version") })
	if s.ID = s.Init.Header.Get("Mcp-Session-Id"); s.ID == "" {
		t.Fatalf("no session: %s", s.Init.Body)
	}
	b := through(s, cl.Instances[1])
	if r := b.Post(t, testfixture.LegacyRequest(1, "ping", nil), as("Bearer alice")); r.Status != 200 {
		t.Fatalf("alice through i1: %d %s", r.Status, r.Body)
	}
	for _, token := range []string{"Bearer bob", ""} {
		if r := b.Post(t, testfixture.LegacyRequest(2, "ping", nil), as(token)); r.Status != http.StatusNotFound {
			t.Fatalf("%q with alice's session through i1: %d %s", token, r.Status, r.Body)
		}
	}
}

// TestSessionLargeResponseCrossesManyChunks: a 1.5 MiB result comes back
// intact through a relay of 16 KiB chunks, two in flight.
func TestSessionLargeResponseCrossesManyChunks(t *testing.T) {
	cl := startSessions(t, 2, backplane.SessionsConfig{ChunkBytes: 16 << 10, Window: 2})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	f := through(s, cl.Instances[1]).Call(t, 1, "tools/call", map[string]any{"name": "big"})
	if got := toolText(t, f); got != bigText {
		t.Fatalf("the result came back with %d bytes, not the %d sent (or changed)", len(got), len(bigText))
	}
}

// fakeOwner subscribes as the owner of the sessions "ghost.…" and takes
// each relay by accepting it and, when head is set, sending a response
// head; then it says nothing more. It returns a channel of the kinds of
// the messages the relaying instance sends it afterwards.
func fakeOwner(t *testing.T, cl *clustertest.Cluster, head bool) <-chan string {
	t.Helper()
	nc := cl.NATS.Connect(t)
	kinds := make(chan string, 64)
	if _, err := nc.Subscribe("clustertest.sessions.ghost", func(m *nats.Msg) {
		if _, err := nc.Subscribe(m.Header.Get("Snodo-Relay-Control"), func(m *nats.Msg) {
			select {
			case kinds <- m.Header.Get("Snodo-Relay-Kind"):
			default:
			}
		}); err != nil {
			t.Error(err)
		}
		_ = nc.PublishMsg(&nats.Msg{Subject: m.Reply, Header: nats.Header{"Snodo-Relay-Kind": {"accept"}}})
		if head {
			_ = nc.PublishMsg(&nats.Msg{Subject: m.Reply, Header: nats.Header{"Snodo-Relay-Kind": {"head"}, "Snodo-Relay-Seq": {"1"}},
				Data: []byte(`{"status":200,"header":{"Content-Type":["text/event-stream"]}}`)})
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return kinds
}

// awaitKind waits for the relaying instance to send kind.
func awaitKind(t *testing.T, kinds <-chan string, kind string) {
	t.Helper()
	timeout := time.After(testkit.DefaultTimeout)
	for {
		select {
		case k := <-kinds:
			if k == kind {
				return
			}
		case <-timeout:
			t.Fatalf("the relaying instance never sent %q", kind)
		}
	}
}

// TestStalledRelay: an owner that took a relay and then says nothing
// (no head, no heartbeat) gets 504 after the stall timeout, and is told
// the relay is cancelled; one that stalls after the head has its
// response cut off, not ended cleanly.
func TestStalledRelay(t *testing.T) {
	cl := startSessions(t, 2, backplane.SessionsConfig{StallTimeout: 300 * time.Millisecond, Heartbeat: 50 * time.Millisecond})
	ghost := &testfixture.HTTPSession{URL: cl.Instances[1].Server.URL(), Client: http.DefaultClient, Version: mcp.Version20251125, ID: "ghost.x"}
	t.Run("before the head", func(t *testing.T) {
		kinds := fakeOwner(t, cl, false)
		start := time.Now()
		r := ghost.Post(t, testfixture.LegacyRequest(1, "ping", nil), nil)
		if r.Status != http.StatusGatewayTimeout {
			t.Fatalf("stalled relay: %d %s", r.Status, r.Body)
		}
		if d := time.Since(start); d < 300*time.Millisecond {
			t.Fatalf("504 after %s, before the stall timeout", d)
		}
		awaitKind(t, kinds, "beat")
		awaitKind(t, kinds, "cancel")
	})
	t.Run("after the head", func(t *testing.T) {
		kinds := fakeOwner(t, cl, true)
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		req, err := ghost.NewRequest(ctx, testfixture.LegacyRequest(1, "ping", nil))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("the owner's head was not relayed: %d", resp.StatusCode)
		}
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Fatal("a stalled response read as complete")
		}
		awaitKind(t, kinds, "cancel")
	})
}

// TestSessionsRefusesBadInstanceNames: the name becomes a subject token
// and the ids' prefix.
func TestSessionsRefusesBadInstanceNames(t *testing.T) {
	nc := startNATS(t).connect(t)
	for _, bad := range []string{"", "a.b", "a b", "*", strings.Repeat("x", 65)} {
		if s, err := backplane.NewSessions(context.Background(), nc, bad, backplane.SessionsConfig{}); err == nil {
			_ = s.Close()
			t.Errorf("instance %q accepted", bad)
		}
	}
	s, err := backplane.NewSessions(context.Background(), nc, "i-0", backplane.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p := s.IDPrefix(); p != "i-0." {
		t.Fatalf("IDPrefix %q", p)
	}
}

// TestIdleRelayedStreamOutlivesStallTimeout: a relayed GET stream with
// nothing to say stays open past several stall timeouts, held by the two
// sides' heartbeats, and ends when DELETE (through a third instance)
// ends the session.
func TestIdleRelayedStreamOutlivesStallTimeout(t *testing.T) {
	const stall = 200 * time.Millisecond
	cl := startSessions(t, 3, backplane.SessionsConfig{StallTimeout: stall, Heartbeat: 40 * time.Millisecond})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	get := send(t, ctx, through(s, cl.Instances[1]), http.MethodGet, nil)
	if get.StatusCode != 200 {
		t.Fatalf("GET through i1: %d", get.StatusCode)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, get.Body)
		ended <- err
	}()
	select {
	case err := <-ended:
		t.Fatalf("the idle relayed stream ended (%v) within five stall timeouts", err)
	case <-time.After(5 * stall): // the time the relay must survive, not a synchronization
	}
	if del := send(t, ctx, through(s, cl.Instances[2]), http.MethodDelete, nil); del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE through i2: %d", del.StatusCode)
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the stream was cut off (%v), not ended", err)
		}
	case <-ctx.Done():
		t.Fatal("the GET stream did not end with its session")
	}
}

// TestRelayedRequestCancelledWithItsClient: a client that goes away
// while its relayed request runs cancels the request on the owner.
func TestRelayedRequestCancelledWithItsClient(t *testing.T) {
	cl := startSessions(t, 2, backplane.SessionsConfig{})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := through(s, cl.Instances[1]).NewRequest(ctx, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "wait"}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	// Cancelling before the tool runs would test nothing.
	select {
	case name := <-waitStarted:
		if name != "i0" {
			t.Fatalf("the tool ran on %s, not the owner", name)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the tool never started")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled request succeeded")
	}
	select {
	case name := <-waitEnded:
		if name != "i0" {
			t.Fatalf("the tool ended on %s, not the owner", name)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the owner's request went on after its client left")
	}
}

// TestOwnerSendsAWindowOfChunks: speaking the relay's wire as a relaying
// instance that acknowledges nothing, the owner sends Window chunks of a
// large response and then waits; one acknowledgement lets exactly one
// more through, and a cancel ends the relay, which gives back its slot.
func TestOwnerSendsAWindowOfChunks(t *testing.T) {
	cl := startSessions(t, 1, backplane.SessionsConfig{Window: 2, ChunkBytes: 1024, MaxRelays: 1})
	s := testfixture.OpenHTTPSession(t, cl.Instances[0].Server.URL(), mcp.Version20251125, nil)
	nc := cl.NATS.Connect(t)
	inbox, ctl := nc.NewInbox(), nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := json.Marshal(map[string]any{"method": "POST", "uri": "/mcp", "host": cl.Instances[0].Server.Addr().String(), "peer": "127.0.0.1:1",
		"header": http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Session-Id": {s.ID}, "Mcp-Protocol-Version": {s.Version}}})
	open := &nats.Msg{Subject: "clustertest.sessions.i0", Reply: inbox, Data: testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "big"}),
		Header: nats.Header{"Snodo-Relay-Kind": {"open"}, "Snodo-Relay": {string(head)}, "Snodo-Relay-Control": {ctl}}}
	if err := nc.PublishMsg(open); err != nil {
		t.Fatal(err)
	}
	next := func(wait time.Duration) (string, error) {
		for {
			m, err := sub.NextMsg(wait)
			if err != nil {
				return "", err
			}
			if k := m.Header.Get("Snodo-Relay-Kind"); k != "beat" {
				return k, nil
			}
		}
	}
	for _, want := range []string{"accept", "head", "data", "data"} {
		if k, err := next(testkit.DefaultTimeout); k != want {
			t.Fatalf("got %q (%v), want %q", k, err, want)
		}
	}
	// The window is full: nothing more until an acknowledgement. The
	// wait is the time a third chunk would need, not a synchronization.
	if k, err := next(300 * time.Millisecond); !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("the owner sent %q past a full window", k)
	}
	if err := nc.PublishMsg(&nats.Msg{Subject: ctl, Header: nats.Header{"Snodo-Relay-Kind": {"ack"}, "Snodo-Relay-Ack": {"1"}}}); err != nil {
		t.Fatal(err)
	}
	if k, err := next(testkit.DefaultTimeout); k != "data" {
		t.Fatalf("after one acknowledgement: %q (%v)", k, err)
	}
	if k, err := next(300 * time.Millisecond); !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("the owner sent %q past the window after one acknowledgement", k)
	}
	if err := nc.PublishMsg(&nats.Msg{Subject: ctl, Header: nats.Header{"Snodo-Relay-Kind": {"cancel"}}}); err != nil {
		t.Fatal(err)
	}
	// The cancelled relay ends and gives back its slot (one only): a
	// relay opened afterwards is taken, not refused as busy.
	deadline := time.Now().Add(testkit.DefaultTimeout)
	for {
		retry, err := nc.SubscribeSync(nc.NewInbox())
		if err != nil {
			t.Fatal(err)
		}
		again := *open
		again.Reply, again.Header = retry.Subject, nats.Header{"Snodo-Relay-Kind": {"open"}, "Snodo-Relay": {string(head)}, "Snodo-Relay-Control": {nc.NewInbox()}}
		again.Data = testfixture.LegacyRequest(2, "ping", nil)
		if err := nc.PublishMsg(&again); err != nil {
			t.Fatal(err)
		}
		m, err := retry.NextMsg(testkit.DefaultTimeout)
		if err != nil {
			t.Fatalf("no answer to a relay after the cancel: %v", err)
		}
		_ = retry.Unsubscribe()
		if k := m.Header.Get("Snodo-Relay-Kind"); k == "accept" {
			break
		} else if k != "busy" || time.Now().After(deadline) {
			t.Fatalf("a relay after the cancel: %q", k)
		}
	}
}
