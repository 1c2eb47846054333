package dispatch_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
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
	if f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(1, "ping", nil), onStdio(sess)); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping without a revision on stdio: %s", f.Raw)
	}
	// ... and over HTTP with neither header nor session.
	if f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(2, "ping", nil), overHTTP); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping without a revision over HTTP: %s", f.Raw)
	}
	// A 2025 request over HTTP without the header is an initialize-era
	// request, not a 2026-07-28 one missing its Mcp-Method header.
	// The frame is checked against the 2025-11-25 schema.
	f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(3, "tools/list", nil), overHTTP)
	if res := resultOf(t, f); res["tools"] == nil {
		t.Fatalf("tools/list without a revision over HTTP: %s", f.Raw)
	}

	// A method only 2026-07-28 has is a 2026-07-28 request missing its
	// _meta, on stdio as over HTTP.
	rpcError(t, testfixture.DispatchRequest(t, rt, testfixture.LegacyRequest(7, "server/discover", nil), onStdio(dispatch.NewSession())), jsonrpc.CodeInvalidParams)

	// A 2026-07-28 header alone does not make a message of a method that
	// revision removed a 2026-07-28 one (the official Go SDK's client sends
	// its ping so); a method it has is still held to its rules.
	claim2026 := func(r *dispatch.Request) {
		r.Header, r.Transport = map[string][]string{"Mcp-Protocol-Version": {mcp.Version20260728}}, dispatch.TransportHTTP
	}
	if f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(5, "ping", nil), claim2026); f.Error != nil || string(f.Result) != "{}" {
		t.Fatalf("ping with only a 2026-07-28 header: %s", f.Raw)
	}
	rpcError(t, testfixture.DispatchRequest(t, rt, testfixture.LegacyRequest(6, "tools/list", nil), claim2026), mcp.CodeHeaderMismatch)

	// The 2026-07-28 answers stay as they are for requests that name it,
	// on stdio and over HTTP (with that revision's headers).
	for _, m := range []string{"ping", "logging/setLevel", "initialize", "resources/subscribe", "resources/unsubscribe"} {
		raw := testkit.Request(4, m, map[string]any{"level": "info", "uri": "test://static"})
		rpcError(t, testfixture.DispatchRequest(t, rt, raw, onStdio(dispatch.NewSession())), jsonrpc.CodeMethodNotFound)
		rpcError(t, testfixture.DispatchRequest(t, rt, raw, func(r *dispatch.Request) {
			r.Header, r.Transport = testfixture.HTTPHeaders(raw), dispatch.TransportHTTP
		}), jsonrpc.CodeMethodNotFound)
	}
}

// TestConnectionLogLevel: logging/setLevel without a revision on a
// connection (stdio) sets the level its 2026-07-28 requests inherit when
// their _meta names none; a request's own level wins. Without a
// connection to keep it, setLevel says so.
func TestConnectionLogLevel(t *testing.T) {
	rt := legacyRuntime(t, nil)
	sess := dispatch.NewSession()
	onConn := func(rec dispatch.Notifier) func(*dispatch.Request) {
		return func(r *dispatch.Request) { r.Session, r.Notifier, r.Transport = sess, rec, dispatch.TransportStdio }
	}
	levels := func(rec *testfixture.Recorder) string {
		var out []string
		for _, n := range rec.Notifications() {
			if n.Method == "notifications/message" {
				out = append(out, n.Params["level"].(string))
			}
		}
		return strings.Join(out, ",")
	}
	if f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(1, "logging/setLevel", map[string]any{"level": "info"}), onConn(nil)); string(f.Result) != "{}" {
		t.Fatalf("setLevel: %s", f.Raw)
	}
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", map[string]any{"name": "chatty"}, onConn(rec)))
	if got := levels(rec); got != "info,warning" {
		t.Fatalf("levels inherited from the connection: %q, want info,warning", got)
	}
	rec = testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", map[string]any{"name": "chatty", "_meta": map[string]any{mcp.MetaLogLevel: "warning"}}, onConn(rec)))
	if got := levels(rec); got != "warning" {
		t.Fatalf("the request's own level: %q, want warning", got)
	}
	// Another connection has its own (no) level.
	rec = testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", map[string]any{"name": "chatty"}, func(r *dispatch.Request) {
		r.Session, r.Notifier = dispatch.NewSession(), rec
	}))
	if got := levels(rec); got != "" {
		t.Fatalf("a fresh connection got messages: %q", got)
	}
	// Stateless HTTP has no connection to keep a level on: the refusal
	// says so and names the 2026-07-28 way.
	f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(2, "logging/setLevel", map[string]any{"level": "info"}),
		func(r *dispatch.Request) { r.Header, r.Transport = map[string][]string{}, dispatch.TransportHTTP })
	e := rpcError(t, f, jsonrpc.CodeMethodNotFound)
	if !strings.Contains(e.Message, "session") || !strings.Contains(e.Message, mcp.MetaLogLevel) {
		t.Fatalf("the refusal does not say why: %q", e.Message)
	}
}
