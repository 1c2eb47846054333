package dispatch_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// urlTool asks for one elicitation in URL mode.
var urlTool = dispatch.WithTool(mcp.Tool{Name: "open_page", Description: "asks the user to open a page"},
	func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if a, ok := req.Input.Elicitation("page"); ok {
			return mcp.TextResult("page: " + a.Action), nil
		}
		return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"page": mcp.ElicitURL("Open the page.", "https://example.com/consent"),
		}}
	})

// TestNoChannelForClientRequests: an initialize-era request that cannot
// carry a server-to-client request (HTTP without sessions) is told that
// the transport is the limit and how sessions are turned on, not that
// the client lacks a capability it may well have declared. A request
// that needs only URL elicitations gets 2025-11-25's -32042 instead,
// naming them, so the client can open them and retry.
func TestNoChannelForClientRequests(t *testing.T) {
	rt := legacyRuntime(t, nil, urlTool)
	stateless := func(version string) func(*dispatch.Request) {
		return func(r *dispatch.Request) {
			r.Header, r.Transport = map[string][]string{"Mcp-Protocol-Version": {version}}, dispatch.TransportHTTP
		}
	}
	for _, v := range legacyVersions {
		f := testfixture.DispatchVersion(t, rt, v, testfixture.LegacyRequest(1, "tools/call", map[string]any{"name": "ask"}), stateless(v))
		e := rpcError(t, f, jsonrpc.CodeInternalError)
		for _, want := range []string{"elicitation/create", "without sessions", "WithSessions"} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("%s: %q does not say %q", v, e.Message, want)
			}
		}
		if strings.Contains(e.Message, "capability") {
			t.Errorf("%s: %q blames a client capability", v, e.Message)
		}
	}
	f := testfixture.DispatchVersion(t, rt, mcp.Version20251125, testfixture.LegacyRequest(2, "tools/call", map[string]any{"name": "open_page"}), stateless(mcp.Version20251125))
	e := rpcError(t, f, mcp.CodeURLElicitationRequired)
	var data struct {
		Elicitations []struct {
			Mode, Message, URL, ElicitationID string
		}
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("-32042 data %s: %v", e.Data, err)
	}
	if len(data.Elicitations) != 1 || data.Elicitations[0].Mode != "url" || data.Elicitations[0].URL != "https://example.com/consent" || data.Elicitations[0].ElicitationID == "" {
		t.Fatalf("-32042 data: %s", e.Data)
	}
	// 2025-06-18 has no URL mode, and no -32042.
	f = testfixture.DispatchVersion(t, rt, mcp.Version20250618, testfixture.LegacyRequest(3, "tools/call", map[string]any{"name": "open_page"}), stateless(mcp.Version20250618))
	rpcError(t, f, jsonrpc.CodeInternalError)
}

// TestURLElicitationAt20250618: 2025-06-18 has form elicitation only, so
// a URL elicitation is refused as a missing capability even when the
// client's initialize claimed one, and nothing is sent to the client.
func TestURLElicitationAt20250618(t *testing.T) {
	rt := legacyRuntime(t, nil, urlTool)
	c, _ := initialize(t, rt, mcp.Version20250618, map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}})
	c.notify("notifications/initialized")
	rec := testfixture.NewRecorderFor(t, mcp.Version20250618)
	msg, err := jsonrpc.Decode(testfixture.LegacyRequest(7, "tools/call", map[string]any{"name": "open_page"}))
	if err != nil {
		t.Fatal(err)
	}
	// A deadline, so that a server waiting for an answer to a request it
	// should not have sent fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := rt.Dispatch(ctx, &dispatch.Request{Message: msg, Session: c.sess, Notifier: rec, Transport: dispatch.TransportStdio})
	if err := testkit.ValidateFrame(mcp.Version20250618, out.Frame, "tools/call"); err != nil {
		t.Fatalf("%v\n%s", err, out.Frame)
	}
	var resp struct{ Error *testkit.FrameError }
	if err := json.Unmarshal(out.Frame, &resp); err != nil || resp.Error == nil || resp.Error.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("want -32021: %s", out.Frame)
	}
	if d := errorData(t, resp.Error); d["requiredCapabilities"].(map[string]any)["elicitation"].(map[string]any)["url"] == nil {
		t.Fatalf("data = %v", d)
	}
	if n := rec.Notifications(); len(n) != 0 {
		t.Fatalf("sent to the client: %v", n)
	}
}

// TestAbandonedClientRequestIsCancelled: when the request that asked the
// client for input ends before the client answers (cancelled, or past
// its deadline), the server tells the client with notifications/cancelled
// naming the server-to-client request, so the client can stop asking its
// user. A request that was answered is not cancelled.
func TestAbandonedClientRequestIsCancelled(t *testing.T) {
	rt := legacyRuntime(t, nil)
	for _, v := range legacyVersions {
		c, _ := initialize(t, rt, v, map[string]any{"elicitation": map[string]any{}})
		c.notify("notifications/initialized")
		client := &answeringClient{t: t, version: v, sess: c.sess, rec: testfixture.NewRecorderFor(t, v),
			asked: make(chan string, 1), answer: func(string, json.RawMessage) []byte { return nil }}
		msg, err := jsonrpc.Decode(testfixture.LegacyRequest(9, "tools/call", map[string]any{"name": "ask"}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan dispatch.Outcome, 1)
		go func() {
			done <- rt.Dispatch(ctx, &dispatch.Request{Message: msg, Session: c.sess, Notifier: client, Transport: dispatch.TransportStdio})
		}()
		if m := <-client.asked; m != "elicitation/create" {
			t.Fatalf("%s: asked %s", v, m)
		}
		cancel()
		<-done
		ns := client.rec.Notifications()
		if len(ns) != 1 || ns[0].Method != "notifications/cancelled" {
			t.Fatalf("%s: after the cancellation the client got %v", v, ns)
		}
		if id, ok := ns[0].Params["requestId"].(float64); !ok || id < 1 {
			t.Fatalf("%s: notifications/cancelled names %v", v, ns[0].Params["requestId"])
		}
		if n := c.sess.Outstanding(); n != 0 {
			t.Fatalf("%s: %d requests still outstanding", v, n)
		}
	}
}
