package dispatch_test

import (
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// TestUnversionedMessages: a message that names no revision (no _meta
// version, no header, nothing negotiated on its session) is served under
// the initialize-era rules, as clients that claim no revision expect
// (the official Go SDK's client sends ping and logging/setLevel so).
func TestUnversionedMessages(t *testing.T) {
	rt := legacyRuntime(t, nil)
	onStdio := func(sess *dispatch.Session) func(*dispatch.Request) {
		return func(r *dispatch.Request) { r.Session, r.Transport = sess, dispatch.TransportStdio }
	}
	overHTTP := func(r *dispatch.Request) { r.Header, r.Transport = map[string][]string{}, dispatch.TransportHTTP }

	// ping on a connection that has not negotiated (or whose initialize
	// has not been answered yet).
	sess := dispatch.NewSession()
	if f := testkit.DispatchVersion(t, rt, mcp.Version20251125, legacyRequest(1, "ping", nil), onStdio(sess)); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping without a revision on stdio: %s", f.Raw)
	}
	// ... and over HTTP with neither header nor session.
	if f := testkit.DispatchVersion(t, rt, mcp.Version20251125, legacyRequest(2, "ping", nil), overHTTP); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping without a revision over HTTP: %s", f.Raw)
	}
	// A 2025 request over HTTP without the header is an initialize-era
	// request, not a 2026-07-28 one missing its Mcp-Method header.
	// The frame is checked against the 2025-11-25 schema.
	f := testkit.DispatchVersion(t, rt, mcp.Version20251125, legacyRequest(3, "tools/list", nil), overHTTP)
	if res := resultOf(t, f); res["tools"] == nil {
		t.Fatalf("tools/list without a revision over HTTP: %s", f.Raw)
	}

	// The 2026-07-28 answers stay as they are for requests that name it,
	// on stdio and over HTTP (with that revision's headers).
	for _, m := range []string{"ping", "logging/setLevel", "initialize", "resources/subscribe", "resources/unsubscribe"} {
		raw := testkit.Request(4, m, map[string]any{"level": "info", "uri": "test://static"})
		rpcError(t, testkit.DispatchRequest(t, rt, raw, onStdio(dispatch.NewSession())), jsonrpc.CodeMethodNotFound)
		rpcError(t, testkit.DispatchRequest(t, rt, raw, func(r *dispatch.Request) {
			r.Header, r.Transport = testkit.HTTPHeaders(raw), dispatch.TransportHTTP
		}), jsonrpc.CodeMethodNotFound)
	}
}
