package streamablehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// replayRuntime serves resources test://r/0 ... test://r/99 from a Hub,
// and a tool that closes its stream before it answers.
func replayRuntime(t *testing.T) (*dispatch.Runtime, *hub.Hub) {
	t.Helper()
	hub := hub.New(hub.Options{})
	opts := []dispatch.Option{
		dispatch.WithLogger(quiet()),
		dispatch.WithSubscriptions(hub),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://r/{n}", Name: "r"}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "v")}}, nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "reconnect"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if !dispatch.CloseStream(ctx) {
				return mcp.TextResult("stream kept"), nil
			}
			return mcp.TextResult("after the stream closed"), nil
		}),
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "replay", Version: "1.0.0"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rt, hub
}

// resume opens a session's GET stream with Last-Event-ID.
func resume(t *testing.T, ctx context.Context, url, session, lastID string) *http.Response {
	t.Helper()
	return rawDo(t, ctx, http.MethodGet, url, http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {session}, "Last-Event-Id": {lastID}})
}

// nextFrame reads the next event that carries a frame.
func nextFrame(t *testing.T, r *testfixture.SSEReader, version string) *testkit.Frame {
	t.Helper()
	for {
		data, comment, err := r.Next()
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		if !comment {
			return testfixture.CheckFrameVersion(t, data, "", version)
		}
	}
}

// updatedURI is the uri of a notifications/resources/updated.
func updatedURI(t *testing.T, f *testkit.Frame) string {
	t.Helper()
	var p struct{ URI string }
	if f.Method != "notifications/resources/updated" || json.Unmarshal(f.Params, &p) != nil {
		t.Fatalf("not a resource update: %s", f.Raw)
	}
	return p.URI
}

// TestGetStreamResumesExactlyOnce: the GET stream drops in the middle of
// a burst of change notifications; the client reconnects with the id of
// the last event it read and gets every other event once, in order.
func TestGetStreamResumesExactlyOnce(t *testing.T) {
	rt, hub := replayRuntime(t)
	for _, version := range []string{mcp.Version20251125, mcp.Version20250618} {
		t.Run(version, func(t *testing.T) {
			forEachTarget(t, func(t *testing.T, tg target) {
				ep := tg.start(t, rt, sessionsOn)
				s := testfixture.OpenHTTPSession(t, ep.url, version, nil)
				const burst = 60
				for i := range burst {
					if f := s.Call(t, i+1, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("test://r/%d", i)}); f.Error != nil {
						t.Fatalf("subscribe: %s", f.Raw)
					}
				}
				ctx, drop := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
				get := openGet(t, ctx, ep.url, s.ID)
				r := testfixture.NewSSEReader(get.Body)
				for i := range burst {
					if _, err := hub.ResourceUpdated(fmt.Sprintf("test://r/%d", i)); err != nil {
						t.Fatal(err)
					}
				}
				var got []string
				for len(got) < burst/3 {
					got = append(got, updatedURI(t, nextFrame(t, r, version)))
				}
				last := r.LastEventID()
				if last == "" {
					t.Fatal("the GET stream's events carry no id")
				}
				drop() // the connection goes mid-burst

				ctx2, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
				defer cancel()
				r = testfixture.NewSSEReader(resume(t, ctx2, ep.url, s.ID, last).Body)
				for len(got) < burst {
					got = append(got, updatedURI(t, nextFrame(t, r, version)))
				}
				// One more: it comes next, so nothing was sent twice.
				if _, err := hub.ResourceUpdated("test://r/0"); err != nil {
					t.Fatal(err)
				}
				got = append(got, updatedURI(t, nextFrame(t, r, version)))
				for i := range burst {
					if want := fmt.Sprintf("test://r/%d", i); got[i] != want {
						t.Fatalf("event %d is %s, want %s (all: %v)", i, got[i], want, got)
					}
				}
				if got[burst] != "test://r/0" {
					t.Fatalf("after the burst: %s, want the new update of test://r/0", got[burst])
				}
			})
		})
	}
}

// TestResumeBeyondTheReplayBound: a client that comes back after more
// events than the session keeps is told plainly that events were lost.
func TestResumeBeyondTheReplayBound(t *testing.T) {
	rt, hub := replayRuntime(t)
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{ReplayEvents: 4}))
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil)
		for i := range 10 {
			s.Call(t, i+1, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("test://r/%d", i)})
		}
		ctx, drop := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		r := testfixture.NewSSEReader(openGet(t, ctx, ep.url, s.ID).Body)
		for i := range 10 {
			if _, err := hub.ResourceUpdated(fmt.Sprintf("test://r/%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		updatedURI(t, nextFrame(t, r, s.Version))
		first := r.LastEventID()
		for range 9 {
			updatedURI(t, nextFrame(t, r, s.Version))
		}
		drop()
		ctx2, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		r = testfixture.NewSSEReader(resume(t, ctx2, ep.url, s.ID, first).Body)
		f := nextFrame(t, r, s.Version)
		if f.Method != "notifications/message" || !strings.Contains(string(f.Params), "were lost") || !strings.Contains(string(f.Params), "last 4 events") {
			t.Fatalf("first event after a late reconnection: %s", f.Raw)
		}
	})
}

// TestServerClosesStreamAndClientResumes: a handler ends its event
// stream (dispatch.CloseStream, SEP-1699 polling) and answers later; the
// stream began with a priming event (id, retry, no data), and a GET with
// that id brings the response.
func TestServerClosesStreamAndClientResumes(t *testing.T) {
	rt, _ := replayRuntime(t)
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{RetryDelay: 250 * time.Millisecond}))
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil)
		ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		req, err := s.NewRequest(ctx, testfixture.LegacyRequest(7, "tools/call", map[string]any{"name": "reconnect"}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("Content-Type %q", ct)
		}
		r := testfixture.NewSSEReader(resp.Body)
		if _, _, err := r.Next(); err == nil {
			t.Fatal("the stream carried an event; it should have closed after its priming event")
		}
		if r.LastEventID() == "" || r.Retry() != "250" {
			t.Fatalf("priming event: id %q, retry %q", r.LastEventID(), r.Retry())
		}
		r2 := testfixture.NewSSEReader(resume(t, ctx, ep.url, s.ID, r.LastEventID()).Body)
		f := nextFrame(t, r2, s.Version)
		if string(f.ID) != "7" || !strings.Contains(string(f.Result), "after the stream closed") {
			t.Fatalf("resumed: %s", f.Raw)
		}
		if _, _, err := r2.Next(); err == nil {
			t.Fatal("the resumed stream goes on after the response")
		}
	})
}

// TestDroppedPostStreamResumes: in the initialize era a dropped
// connection is not a cancellation: the request goes on, and its client
// reconnects with Last-Event-ID to get the rest of its stream, the
// response included, each event once.
func TestDroppedPostStreamResumes(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		release := make(chan struct{})
		rt, err := dispatch.New(mcp.Implementation{Name: "replay", Version: "1.0.0"},
			dispatch.WithLogger(quiet()),
			dispatch.WithTool(mcp.Tool{Name: "steps"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2}); err != nil {
					return nil, err
				}
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 2, Total: 2}); err != nil {
					return nil, err
				}
				return mcp.TextResult("all steps done"), nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		ep := tg.start(t, rt, sessionsOn)
		s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20250618, nil)
		ctx, drop := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		req, err := s.NewRequest(ctx, testfixture.LegacyRequest(3, "tools/call", map[string]any{"name": "steps", "_meta": map[string]any{"progressToken": "p"}}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := testfixture.NewSSEReader(resp.Body)
		if f := nextFrame(t, r, s.Version); f.Method != "notifications/progress" || !strings.Contains(string(f.Params), `"progress":1`) {
			t.Fatalf("first event: %s", f.Raw)
		}
		last := r.LastEventID()
		drop()
		resp.Body.Close()
		close(release) // the request goes on after its client left
		ctx2, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
		defer cancel()
		r = testfixture.NewSSEReader(resume(t, ctx2, ep.url, s.ID, last).Body)
		if f := nextFrame(t, r, s.Version); f.Method != "notifications/progress" || !strings.Contains(string(f.Params), `"progress":2`) {
			t.Fatalf("first event after resuming: %s", f.Raw)
		}
		if f := nextFrame(t, r, s.Version); string(f.ID) != "3" || !strings.Contains(string(f.Result), "all steps done") {
			t.Fatalf("response after resuming: %s", f.Raw)
		}
	})
}
