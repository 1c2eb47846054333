package client_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// cachingServer answers lists and reads with cache hints: tools/list
// private for a minute, resources/read public for a minute, prompts/list
// with ttlMs 0. subscriptions/listen is acknowledged and then sends what
// is written to events.
func cachingServer(events chan map[string]any) func(f *fake, m *jsonrpc.Message) {
	return modern(func(f *fake, m *jsonrpc.Message) {
		switch m.Method {
		case "tools/list":
			f.reply(m.ID, complete(map[string]any{"tools": []any{tool("t")}, "ttlMs": 60000, "cacheScope": "private"}))
		case "prompts/list":
			f.reply(m.ID, complete(map[string]any{"prompts": []any{}, "ttlMs": 0, "cacheScope": "public"}))
		case "resources/read":
			var uri string
			param(m, "uri", &uri)
			f.reply(m.ID, complete(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": "v"}}, "ttlMs": 60000, "cacheScope": "public"}))
		case "subscriptions/listen":
			sub := map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}
			var filter map[string]any
			param(m, "notifications", &filter)
			f.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": filter, "_meta": sub})
			for ev := range events {
				method := ev["method"].(string)
				params := map[string]any{"_meta": sub}
				if uri, ok := ev["uri"]; ok {
					params["uri"] = uri
				}
				f.notify(method, params)
			}
			f.reply(m.ID, map[string]any{"resultType": "complete", "_meta": sub})
		}
	})
}

// keyed gives a stream transport a fixed server identity, so that two
// clients of two fakes count as clients of one server.
type keyed struct{ *client.StreamTransport }

func (k keyed) Connect(ctx context.Context, peer clientconn.Peer) (clientconn.Conn, error) {
	conn, err := k.StreamTransport.Connect(ctx, peer)
	if err != nil {
		return nil, err
	}
	return keyedConn{conn}, nil
}

type keyedConn struct{ clientconn.Conn }

func (keyedConn) CacheKey() string { return "the-server" }

func TestCacheHonoursHints(t *testing.T) {
	ctx := context.Background()
	events := make(chan map[string]any)
	f, tr := startFake(t, cachingServer(events))
	c := connect(t, tr)
	for range 3 {
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPrompts(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadResource(ctx, "file:///a/b"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.received("tools/list")); n != 1 {
		t.Fatalf("tools/list sent %d times, want 1 (cached for a minute)", n)
	}
	if n := len(f.received("prompts/list")); n != 3 {
		t.Fatalf("prompts/list sent %d times, want 3 (ttlMs 0)", n)
	}
	if n := len(f.received("resources/read")); n != 1 {
		t.Fatalf("resources/read sent %d times, want 1", n)
	}

	// Change notifications on a listen stream drop what they concern.
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}})
	if err != nil {
		t.Fatal(err)
	}
	events <- map[string]any{"method": "notifications/tools/list_changed"}
	events <- map[string]any{"method": "notifications/resources/updated", "uri": "file:///a"}
	close(events)
	<-sub.Done()
	var got []string
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Method)
	}
	if len(got) != 2 {
		t.Fatalf("events %v", got)
	}
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(ctx, "file:///a/b"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.received("tools/list")); n != 2 {
		t.Fatalf("tools/list sent %d times after list_changed, want 2", n)
	}
	// file:///a/b lies under the updated file:///a.
	if n := len(f.received("resources/read")); n != 2 {
		t.Fatalf("resources/read sent %d times after the update, want 2", n)
	}
	sub.Close()
}

// TestSharedCacheScopes: public results are shared by all clients of a
// server; private ones only by clients with the same identity.
func TestSharedCacheScopes(t *testing.T) {
	ctx := context.Background()
	cache := &client.Cache{}
	var fakes []*fake
	var clients []*client.Client
	for _, id := range []string{"alice", "bob", "alice"} {
		f, tr := startFake(t, cachingServer(nil))
		fakes = append(fakes, f)
		clients = append(clients, connect(t, keyed{tr}, client.WithCache(cache, id)))
	}
	for _, c := range clients {
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadResource(ctx, "file:///x"); err != nil {
			t.Fatal(err)
		}
	}
	count := func(method string) (n []int) {
		for _, f := range fakes {
			n = append(n, len(f.received(method)))
		}
		return n
	}
	// Private tools/list: alice asks, bob asks, the second alice reuses.
	if n := count("tools/list"); n[0] != 1 || n[1] != 1 || n[2] != 0 {
		t.Fatalf("tools/list per client %v, want [1 1 0]", n)
	}
	// Public resources/read: only the first asks.
	if n := count("resources/read"); n[0] != 1 || n[1] != 0 || n[2] != 0 {
		t.Fatalf("resources/read per client %v, want [1 0 0]", n)
	}
}

// TestNilCacheTurnsCachingOff: WithCache(nil, "") stores nothing.
func TestNilCacheTurnsCachingOff(t *testing.T) {
	f, tr := startFake(t, cachingServer(nil))
	c := connect(t, tr, client.WithCache(nil, ""))
	for range 2 {
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.received("tools/list")); n != 2 {
		t.Fatalf("tools/list sent %d times, want 2", n)
	}
}
