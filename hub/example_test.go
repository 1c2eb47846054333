// Runnable examples of the hub package: a Hub, a Registry, and an
// initialize-era session fed by a Hub.

package hub_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// A Hub hands each published event to the listeners whose filter names
// it. A listener that has not taken its events yet keeps at most
// MaxBuffer of them; here the oldest is dropped.
func ExampleHub() {
	h := hub.New(hub.Options{MaxBuffer: 2})
	l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///notes"}}, nil)
	defer l.Close()

	fmt.Printf("%+v\n", h.ToolsListChanged())
	r, _ := h.ResourceUpdated("file:///notes")
	fmt.Printf("%+v\n", r)
	r, _ = h.ResourceUpdated("file:///other") // nobody subscribed
	fmt.Printf("%+v\n", r)
	r, _ = h.ResourceUpdated("file:///notes") // the buffer is full: the oldest goes
	fmt.Printf("%+v\n", r)
	for {
		ev, err := l.Next()
		if errors.Is(err, dispatch.ErrNoEvent) {
			break
		}
		fmt.Println(ev.Kind.Method(), ev.URI)
	}
	// Output:
	// {Matched:1 Delivered:0 Buffered:1 Dropped:0}
	// {Matched:1 Delivered:0 Buffered:1 Dropped:0}
	// {Matched:0 Delivered:0 Buffered:0 Dropped:0}
	// {Matched:1 Delivered:0 Buffered:1 Dropped:1}
	// notifications/resources/updated file:///notes
	// notifications/resources/updated file:///notes
}

// A Registry changes the tools a running server offers. Every change is
// published through the hub once the new list is what requests see, so a
// client that lists the tools after the event finds the change; a
// conformance fixture's test_trigger_tool_change can be exactly this.
func ExampleRegistry() {
	h := hub.New(hub.Options{})
	reg := hub.NewRegistry(h)
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithSubscriptions(h), dispatch.WithCatalog(reg))
	if err != nil {
		panic(err)
	}
	// A listen stream attaches to the hub like this.
	l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	defer l.Close()

	_ = reg.AddTool(mcp.Tool{Name: "report", Description: "Writes the weekly report."},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("done"), nil
		})
	ev, _ := l.Next()
	fmt.Println(ev.Kind.Method())
	for _, t := range rt.Tools() {
		fmt.Println(t.Name)
	}
	fmt.Println("listChanged:", rt.Capabilities().Tools.ListChanged)
	// Output:
	// notifications/tools/list_changed
	// report
	// listChanged: true
}

// A Hub given with WithSubscriptions is also the SessionSource of
// initialize-era sessions: a 2025-11-25 session that subscribed to a
// resource with resources/subscribe is sent its updates, which the
// transport pulls with NextNotification when the session wakes it.
func Example() {
	h := hub.New(hub.Options{})
	read := func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "hello")}}, nil
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithSubscriptions(h),
		dispatch.WithResource(mcp.Resource{URI: "file:///notes", Name: "notes"}, read))
	if err != nil {
		panic(err)
	}
	sess := dispatch.NewSession()
	defer sess.Close()
	send := func(raw string) {
		msg, err := jsonrpc.Decode([]byte(raw))
		if err != nil {
			panic(err)
		}
		rt.Dispatch(context.Background(), &dispatch.Request{Message: msg, Session: sess, Transport: dispatch.TransportStdio})
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///notes"}}`)

	_, _ = h.ResourceUpdated("file:///other") // not subscribed: not sent
	_, _ = h.ResourceUpdated("file:///notes")
	for f := sess.NextNotification(); f != nil; f = sess.NextNotification() {
		fmt.Println(string(f))
	}
	// Output:
	// {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///notes"}}
}
