package streamablehttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// openStream posts frame and returns the response with its body still
// open, for tests that act between events.
func openStream(t *testing.T, ctx context.Context, url string, frame []byte) *http.Response {
	t.Helper()
	req, err := testfixture.NewMCPRequest(ctx, url, frame)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// nextEvent reads the next event (skipping keepalive comments) and
// validates it against the schema.
func nextEvent(t *testing.T, sr *testfixture.SSEReader, method string) *testkit.Frame {
	t.Helper()
	for {
		data, comment, err := sr.Next()
		if err != nil {
			t.Fatalf("reading event: %v", err)
		}
		if !comment {
			return testfixture.CheckFrame(t, data, method)
		}
	}
}

func checkSSEHeaders(t *testing.T, h http.Header) {
	t.Helper()
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestProgressSwitchesToEventStream(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		reply := testfixture.PostMCP(t, nil, ep.url, progressCall(7, "progress"), nil)
		if reply.Status != 200 {
			t.Fatalf("status %d: %s", reply.Status, reply.Body)
		}
		checkSSEHeaders(t, reply.Header)
		if len(reply.Frames) != 4 {
			t.Fatalf("%d events, want 3 progress and the result: %s", len(reply.Frames), reply.Body)
		}
		for i, f := range reply.Frames[:3] {
			var p struct {
				Progress float64 `json:"progress"`
				Token    string  `json:"progressToken"`
			}
			if f.Method != "notifications/progress" || json.Unmarshal(f.Params, &p) != nil || p.Progress != float64(i+1) || p.Token != "tok" {
				t.Fatalf("event %d: %s", i, f.Raw)
			}
		}
		if last := reply.Last(); string(last.ID) != "7" || last.Error != nil || !strings.Contains(string(last.Result), "done") {
			t.Fatalf("final event: %s", last.Raw)
		}
	})
}

func TestWithoutProgressTheAnswerIsJSON(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		// The tool reports progress, but the request carried no token.
		reply := testfixture.PostMCP(t, nil, ep.url, call(1, "progress", nil), nil)
		if reply.Status != 200 || reply.Header.Get("Content-Type") != "application/json" || len(reply.Frames) != 1 {
			t.Fatalf("status %d %s: %s", reply.Status, reply.Header.Get("Content-Type"), reply.Body)
		}
	})
}

func TestKeepaliveCommentsOnAQuietStream(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g), streamablehttp.WithLimits(streamablehttp.Limits{KeepAlive: 10 * time.Millisecond}))
		resp := openStream(t, context.Background(), ep.url, progressCall(1, "progress-hold"))
		checkSSEHeaders(t, resp.Header)
		sr := testfixture.NewSSEReader(resp.Body)
		if f := nextEvent(t, sr, "tools/call"); f.Method != "notifications/progress" {
			t.Fatalf("first event: %s", f.Raw)
		}
		waitFor(t, g.entered)
		for comments := 0; comments < 2; {
			_, comment, err := sr.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !comment {
				t.Fatal("an event arrived while the handler was held")
			}
			comments++
		}
		close(g.release)
		if f := nextEvent(t, sr, "tools/call"); string(f.ID) != "1" || !strings.Contains(string(f.Result), "released") {
			t.Fatalf("final event: %s", f.Raw)
		}
		if _, _, err := sr.Next(); err == nil {
			t.Fatal("the stream went on after the final event")
		}
	})
}

func TestRequestIsAnActorUnderItsNode(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g))
		done := make(chan *testfixture.HTTPReply, 1)
		go func() { done <- testfixture.PostMCP(t, nil, ep.url, call("held", "hold", nil), nil) }()
		waitFor(t, g.entered)
		tree := testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
		node := testkit.Find(tree, ep.kind)
		if node == nil || len(node.Children) != 1 || node.Children[0].Kind != "request" {
			t.Fatalf("no request actor under the %s node: %+v", ep.kind, tree)
		}
		req := node.Children[0]
		if req.Attrs["method"] != "tools/call" || req.Attrs["id"] != `"held"` || req.Attrs["peer"] == "" {
			t.Fatalf("request attrs %v", req.Attrs)
		}
		close(g.release)
		if r := <-done; r.Status != 200 {
			t.Fatalf("status %d", r.Status)
		}
		testkit.WaitNoRequests(t, ep.sup)
	})
}

func TestDisconnectCancelsTheRequest(t *testing.T) {
	for _, tool := range []string{"hold", "progress-hold"} {
		t.Run(tool, func(t *testing.T) {
			forEachTarget(t, func(t *testing.T, tg target) {
				g := newGate()
				ep := tg.start(t, testRuntime(t, g))
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() {
					req, _ := testfixture.NewMCPRequest(ctx, ep.url, progressCall(3, tool))
					resp, err := http.DefaultClient.Do(req)
					if err == nil {
						// The progress stream started; reading ends when the
						// connection goes away.
						_, _, err = testfixture.NewSSEReader(resp.Body).Next()
						resp.Body.Close()
					}
					errc <- err
				}()
				waitFor(t, g.entered)
				cancel() // the client goes away
				if id := waitFor(t, g.cancelled); id != "3" {
					t.Fatalf("cancelled %s", id)
				}
				testkit.WaitNoRequests(t, ep.sup)
				<-errc
				// The slot frees once the handler has returned.
				testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
					x := testkit.Find(n, "executor")
					return x != nil && x.Attrs["running"] == "0"
				})
				if cancelled, submitted := executorCount(t, ep.sup, "cancelled"), executorCount(t, ep.sup, "submitted"); cancelled != 1 || submitted != 1 {
					t.Fatalf("executor: %d cancelled, %d submitted", cancelled, submitted)
				}
			})
		})
	}
}

func TestPrincipalReachesTheHandler(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithPrincipal(func(r *http.Request) any {
			return "user:" + r.Header.Get("X-Test-User")
		}))
		reply := testfixture.PostMCP(t, nil, ep.url, call(1, "whoami", nil), setHeader("X-Test-User", "ada"))
		if reply.Status != 200 || !strings.Contains(string(reply.Last().Result), "user:ada") {
			t.Fatalf("%d %s", reply.Status, reply.Body)
		}
	})
}

func TestOverloadIs503(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		rt := testRuntime(t, g)
		sup := limitedSupervisor(t, rt, supervisor.Limits{MaxConcurrency: 1, MaxQueue: -1})
		ep := tg.startWith(t, sup, rt)
		done := make(chan *testfixture.HTTPReply, 1)
		go func() { done <- testfixture.PostMCP(t, nil, ep.url, call(1, "hold", nil), nil) }()
		waitFor(t, g.entered)
		reply := testfixture.PostMCP(t, nil, ep.url, call(2, "echo", nil), nil)
		if reply.Status != 503 || reply.Last().Error == nil || reply.Last().Error.Code != -32603 || string(reply.Last().ID) != "2" {
			t.Fatalf("%d %s", reply.Status, reply.Body)
		}
		close(g.release)
		if r := <-done; r.Status != 200 {
			t.Fatalf("held request: %d", r.Status)
		}
	})
}

func TestTimeoutAfterTheStreamStartedIsTheFinalEvent(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		g := newGate()
		ep := tg.start(t, testRuntime(t, g), streamablehttp.WithLimits(streamablehttp.Limits{RequestTimeout: 100 * time.Millisecond}))
		reply := testfixture.PostMCP(t, nil, ep.url, progressCall(4, "progress-hold"), nil)
		if reply.Status != 200 || reply.Header.Get("Content-Type") != "text/event-stream" || len(reply.Frames) != 2 {
			t.Fatalf("%d %s", reply.Status, reply.Body)
		}
		if last := reply.Last(); string(last.ID) != "4" || last.Error == nil || last.Error.Code != -32603 {
			t.Fatalf("final event: %s", last.Raw)
		}
		waitFor(t, g.cancelled) // the handler's context ended at the deadline
	})
}
