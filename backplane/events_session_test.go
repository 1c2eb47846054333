// Tests that an initialize-era session on one instance hears the changes
// published on another.

package backplane_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// TestLegacySessionHearsEveryInstance: Events is a SessionSource, so a
// 2025-11-25 session on instance a that subscribed to a resource with
// resources/subscribe is sent the update published on instance b, and
// the list change of b's registry, and nothing it did not subscribe to.
func TestLegacySessionHearsEveryInstance(t *testing.T) {
	const version = mcp.Version20251125
	ns := startNATS(t)
	a := newInstance(t, "a", ns.connect(t), hub.Options{})
	b := newInstance(t, "b", ns.connect(t), hub.Options{})

	sess := dispatch.NewSession()
	t.Cleanup(sess.Close)
	woken := make(chan struct{}, 1)
	sess.SetWake(func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	})
	id := 0
	send := func(method string, params any) map[string]any {
		t.Helper()
		id++
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		f := testfixture.DispatchVersion(t, a.rt, version, raw, func(r *dispatch.Request) {
			r.Session, r.Transport = sess, dispatch.TransportStdio
		})
		if f == nil || f.Error != nil {
			t.Fatalf("%s: %+v", method, f)
		}
		var res map[string]any
		if err := json.Unmarshal(f.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := send("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "old-client", "version": "1"}})
	caps, _ := res["capabilities"].(map[string]any)
	if r, _ := caps["resources"].(map[string]any); r["subscribe"] != true {
		t.Fatalf("resources.subscribe not offered with Events: %v", caps)
	}
	send("resources/subscribe", map[string]any{"uri": watched})
	if f := sess.NextNotification(); f != nil {
		t.Fatalf("a notification before any change: %s", f)
	}
	select {
	case <-woken: // initialize asks the transport to pull once
	default:
	}
	// next waits for the session's wake and returns what it has, pulled
	// dry as a transport does.
	next := func() []string {
		t.Helper()
		select {
		case <-woken:
		case <-time.After(10 * time.Second):
			t.Fatal("the session was not woken")
		}
		var got []string
		for f := sess.NextNotification(); f != nil; f = sess.NextNotification() {
			if err := testkit.ValidateFrame(version, f, ""); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			got = append(got, string(f))
		}
		return got
	}

	for _, uri := range []string{other, watched} {
		if _, err := b.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + watched + `"}}`
	if got := next(); len(got) != 1 || got[0] != want {
		t.Fatalf("after b published: %q, want only %s", got, want)
	}

	if err := b.reg.AddTool(mcp.Tool{Name: "new"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("new"), nil
	}); err != nil {
		t.Fatal(err)
	}
	want = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	if got := next(); len(got) != 1 || got[0] != want {
		t.Fatalf("after b's registry changed: %q, want %s", got, want)
	}
}
