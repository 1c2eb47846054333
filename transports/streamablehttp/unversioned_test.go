package streamablehttp_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// postBare posts frame as an initialize-era client does before it has
// the initialize response: no MCP-Protocol-Version, no Mcp-Session-Id,
// no Mcp-Method, nothing but the body and its media types.
func postBare(t *testing.T, url, method string, frame []byte) *testfixture.HTTPReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return testfixture.ReadHTTPReplyVersion(t, resp, method, mcp.Version20251125)
}

// TestPingBeforeTheInitializeResponse: the 2025 lifecycle lets a client
// ping before it has the initialize response, so before it has a session
// id or a revision to name. Such a ping names no revision and is served
// under the initialize-era rules: 200 with {}, with sessions and without.
func TestPingBeforeTheInitializeResponse(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		for _, c := range []struct {
			name string
			opts []streamablehttp.Option
		}{{"stateless", nil}, {"sessions", []streamablehttp.Option{sessionsOn}}} {
			t.Run(c.name, func(t *testing.T) {
				ep := tg.start(t, legacyRuntime(t), c.opts...)
				r := postBare(t, ep.url, "ping", testfixture.LegacyRequest(1, "ping", nil))
				last := r.Last()
				if r.Status != http.StatusOK || last == nil || last.Error != nil || string(last.Result) != "{}" {
					t.Fatalf("ping before initialize: HTTP %d %s", r.Status, r.Body)
				}
				if id := r.Header.Get("Mcp-Session-Id"); id != "" {
					t.Fatalf("a ping opened a session: %q", id)
				}
				// The handshake that follows is not disturbed by it.
				if s := testfixture.OpenHTTPSession(t, ep.url, mcp.Version20251125, nil); (s.ID != "") != (c.opts != nil) {
					t.Fatalf("session id %q after the early ping (sessions %v)", s.ID, c.opts != nil)
				}
			})
		}
	})
}

// TestRemovedMethodsStayRemovedAt20260728: a request that names
// 2026-07-28 in its _meta (and headers) for a method that revision
// removed is 404 with -32601 over HTTP, with sessions and without, even
// though the same method without a revision is served under the
// initialize-era rules.
func TestRemovedMethodsStayRemovedAt20260728(t *testing.T) {
	removed := []string{"ping", "logging/setLevel", "initialize", "resources/subscribe", "resources/unsubscribe"}
	params := map[string]any{"level": "info", "uri": "test://static", "protocolVersion": mcp.Version20251125, "capabilities": map[string]any{}}
	forEachTarget(t, func(t *testing.T, tg target) {
		for _, c := range []struct {
			name string
			opts []streamablehttp.Option
		}{{"stateless", nil}, {"sessions", []streamablehttp.Option{sessionsOn}}} {
			t.Run(c.name, func(t *testing.T) {
				ep := tg.start(t, legacyRuntime(t), c.opts...)
				for i, m := range removed {
					r := testfixture.PostMCP(t, nil, ep.url, testkit.Request(i+1, m, params), nil)
					last := r.Last()
					if r.Status != http.StatusNotFound || last == nil || last.Error == nil || last.Error.Code != jsonrpc.CodeMethodNotFound {
						t.Fatalf("%s at 2026-07-28: HTTP %d %s, want 404 with -32601", m, r.Status, r.Body)
					}
					if id := r.Header.Get("Mcp-Session-Id"); id != "" {
						t.Fatalf("%s at 2026-07-28 opened a session: %q", m, id)
					}
				}
			})
		}
	})
}

// TestBareRequestIsInitializeEra: a request with no revision anywhere (no
// _meta, no MCP-Protocol-Version, no session) is an initialize-era
// request, as the 2025-06-18 transport says a server that cannot tell
// should assume: served without sessions, and with sessions refused for
// the missing Mcp-Session-Id, never for a missing 2026-07-28 header.
func TestBareRequestIsInitializeEra(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		r := postBare(t, tg.start(t, legacyRuntime(t)).url, "tools/list", testfixture.LegacyRequest(1, "tools/list", nil))
		if last := r.Last(); r.Status != http.StatusOK || last == nil || last.Error != nil || !bytes.Contains(last.Result, []byte(`"tools"`)) {
			t.Fatalf("tools/list with no revision, no sessions: HTTP %d %s", r.Status, r.Body)
		}
		r = postBare(t, tg.start(t, legacyRuntime(t), sessionsOn).url, "tools/list", testfixture.LegacyRequest(2, "tools/list", nil))
		if last := r.Last(); r.Status != http.StatusBadRequest || last == nil || last.Error == nil || !strings.Contains(last.Error.Message, "Mcp-Session-Id") {
			t.Fatalf("tools/list with no revision, sessions on: HTTP %d %s, want 400 naming Mcp-Session-Id", r.Status, r.Body)
		}
	})
}
