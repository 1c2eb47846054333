package hub_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
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
