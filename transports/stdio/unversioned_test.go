package stdio_test

import (
	"fmt"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// TestPingBeforeTheInitializeResponse: the 2025 lifecycle lets a client
// ping before the server has answered initialize. A ping sent first, and
// one sent right after initialize without waiting for its response, are
// both answered with {}, and the handshake completes as usual.
func TestPingBeforeTheInitializeResponse(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20250618} {
		t.Run(version, func(t *testing.T) {
			srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
			srv.Client.SetVersion(version)
			srv.Send(t, testfixture.LegacyRequest("first", "ping", nil))
			srv.Send(t, testfixture.Initialize(0, version, nil))
			srv.Send(t, testfixture.LegacyRequest("during", "ping", nil))
			for _, id := range []string{`"first"`, `"during"`} {
				if r := srv.Client.AwaitResponse(t, id); r.Error != nil || string(r.Result) != "{}" {
					t.Fatalf("ping %s before the initialize response: %s", id, r.Raw)
				}
			}
			if r := srv.Client.AwaitResponse(t, "0"); r.Error != nil {
				t.Fatalf("initialize after an early ping: %s", r.Raw)
			}
			srv.Send(t, testkit.Notification("notifications/initialized", nil))
			srv.Send(t, testfixture.LegacyRequest(1, "tools/list", nil))
			if r := srv.Client.AwaitResponse(t, "1"); r.Error != nil {
				t.Fatalf("tools/list after the handshake: %s", r.Raw)
			}
		})
	}
}

// TestRemovedMethodsStayRemovedAt20260728: on stdio, a request whose
// _meta names 2026-07-28 for a method that revision removed gets -32601,
// though the same method without a revision is served under the
// initialize-era rules.
func TestRemovedMethodsStayRemovedAt20260728(t *testing.T) {
	srv := testkit.StartStdio(t, legacyTestRuntime(t, nil))
	params := map[string]any{"level": "info", "uri": "test://static", "protocolVersion": mcp.Version20251125, "capabilities": map[string]any{}}
	for i, m := range []string{"ping", "logging/setLevel", "initialize", "resources/subscribe", "resources/unsubscribe"} {
		srv.Send(t, testkit.Request(i+1, m, params))
		if r := srv.Client.AwaitResponse(t, fmt.Sprint(i+1)); r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Fatalf("%s at 2026-07-28: %s, want -32601", m, r.Raw)
		}
	}
	// The connection negotiated nothing: a ping without a revision is
	// still served.
	srv.Client.SetVersion(mcp.Version20251125)
	srv.Send(t, testfixture.LegacyRequest(9, "ping", nil))
	if r := srv.Client.AwaitResponse(t, "9"); r.Error != nil || string(r.Result) != "{}" {
		t.Fatalf("ping without a revision after the refusals: %s", r.Raw)
	}
}
