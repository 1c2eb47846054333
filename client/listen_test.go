package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// TestListenOverflow: a reader that falls behind loses the oldest events
// and is told how many, in their place.
func TestListenOverflow(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		sub := map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}
		f.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"u:r"}}, "_meta": sub})
		for i := 1; i <= 5; i++ {
			f.notify("notifications/resources/updated", map[string]any{"uri": fmt.Sprintf("u:r/%d", i), "_meta": sub})
		}
		f.reply(m.ID, map[string]any{"resultType": "complete", "_meta": sub})
	}))
	c := connect(t, tr, client.WithLimits(client.Limits{ListenBuffer: 2}))
	ctx := context.Background()
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"u:r"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := sub.Acknowledged().ResourceSubscriptions; len(got) != 1 || got[0] != "u:r" {
		t.Fatalf("acknowledged %v", got)
	}
	<-sub.Done()
	ev, err := sub.Next(ctx)
	if err != nil || ev.Dropped != 3 || ev.Method != "" {
		t.Fatalf("first: %+v %v, want an overflow report of 3", ev, err)
	}
	for _, want := range []string{"u:r/4", "u:r/5"} {
		ev, err := sub.Next(ctx)
		if err != nil || ev.Method != "notifications/resources/updated" || ev.URI != want {
			t.Fatalf("got %+v %v, want %s", ev, err, want)
		}
	}
	if _, err := sub.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("after the server's result: %v", err)
	}
	if !errors.Is(sub.Err(), io.EOF) {
		t.Fatalf("err %v", sub.Err())
	}
}

// TestListenCloseCancels: closing a subscription on stdio tells the server
// with notifications/cancelled for the listen request.
func TestListenCloseCancels(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		if m.Method == "subscriptions/listen" {
			f.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true},
				"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}})
		}
	}))
	c := connect(t, tr)
	sub, err := c.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if a := sub.Acknowledged(); !a.ToolsListChanged || a.PromptsListChanged {
		t.Fatalf("acknowledged %+v", a)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	listen := f.received("subscriptions/listen")[0]
	cancel := f.await(t, "notifications/cancelled")
	var id jsonrpc.ID
	if !param(cancel, "requestId", &id) || id != listen.ID {
		t.Fatalf("cancelled %s, want the listen id %s", cancel.Params, listen.ID)
	}
	if !errors.Is(sub.Err(), client.ErrClosed) {
		t.Fatalf("err %v", sub.Err())
	}
}

// TestListenEndedByServer: on stdio the server may end a listen stream
// with notifications/cancelled naming it.
func TestListenEndedByServer(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		if m.Method == "subscriptions/listen" {
			f.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{},
				"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}})
			f.notify("notifications/cancelled", map[string]any{"requestId": m.ID, "reason": "shutting down"})
		}
	}))
	c := connect(t, tr)
	sub, err := c.Listen(context.Background(), mcp.SubscriptionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := sub.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("want io.EOF, got %v", err)
	}
}

func TestListenRefused(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		f.fail(m.ID, jsonrpc.CodeMethodNotFound, "Method not found", nil)
	}))
	c := connect(t, tr)
	_, err := c.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true})
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}) {
		t.Fatalf("want -32601, got %v", err)
	}
}

// TestListenOnOurServer: until our server serves subscriptions/listen,
// every transport reports -32601; once it does, the subscription is
// acknowledged with no more than was asked and closes cleanly.
func TestListenOnOurServer(t *testing.T) {
	for _, tr := range ourTransports() {
		t.Run(tr.name, func(t *testing.T) {
			c := testkit.Connect(t, tr.make(t))
			sub, err := c.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true})
			if err != nil {
				if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}) {
					t.Fatalf("want -32601 or a subscription, got %v", err)
				}
				return
			}
			if a := sub.Acknowledged(); a.PromptsListChanged || a.ResourcesListChanged || len(a.ResourceSubscriptions) > 0 {
				t.Fatalf("acknowledged more than asked: %+v", a)
			}
			if err := sub.Close(); err != nil || !errors.Is(sub.Err(), client.ErrClosed) {
				t.Fatalf("close: %v, %v", err, sub.Err())
			}
		})
	}
}
