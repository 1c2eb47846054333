package dispatch_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// A Hub hands each published event to the listeners whose filter names
// it. A listener that has not taken its events yet keeps at most
// MaxBuffer of them; here the oldest is dropped.
func ExampleHub() {
	hub := dispatch.NewHub(dispatch.HubOptions{MaxBuffer: 2})
	l := hub.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///notes"}}, nil)
	defer l.Close()

	fmt.Printf("%+v\n", hub.ToolsListChanged())
	r, _ := hub.ResourceUpdated("file:///notes")
	fmt.Printf("%+v\n", r)
	r, _ = hub.ResourceUpdated("file:///other") // nobody subscribed
	fmt.Printf("%+v\n", r)
	r, _ = hub.ResourceUpdated("file:///notes") // the buffer is full: the oldest goes
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
	hub := dispatch.NewHub(dispatch.HubOptions{})
	reg := dispatch.NewRegistry(hub)
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithSubscriptions(hub), dispatch.WithRegistry(reg))
	if err != nil {
		panic(err)
	}
	// A listen stream attaches to the hub like this.
	l := hub.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
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

// An extension adds a member to the listen filter (ExtensionFilter); its
// events name a key of that member and reach the listeners that follow
// the key. The tasks extension does this with taskIds.
func ExampleExtensionFilter() {
	hub := dispatch.NewHub(dispatch.HubOptions{})
	_, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithSubscriptions(hub),
		dispatch.WithExtension(dispatch.Extension{
			ID:       "com.example/jobs",
			Versions: []string{mcp.Version20260728},
			Methods: map[string]dispatch.ExtensionHandler{"jobs/get": func(context.Context, *dispatch.ExtensionRequest) (any, error) {
				return map[string]any{}, nil
			}},
			// A listen request that declares the extension may name
			// "jobIds"; Allow could keep only the caller's own.
			Filters: []dispatch.ExtensionFilter{{Member: "jobIds", Method: "notifications/jobs"}},
		}))
	if err != nil {
		panic(err)
	}
	// A listen stream naming jobIds ["J1"] attaches to the hub like this.
	l := hub.Attach(mcp.SubscriptionFilter{Keys: map[string][]string{"jobIds": {"J1"}}}, nil)
	defer l.Close()

	for _, job := range []string{"J1", "J2"} {
		r, _ := hub.Publish(dispatch.Event{Kind: dispatch.EventExtension, Member: "jobIds", Key: job,
			Method: "notifications/jobs", Params: []byte(`{"jobId":"` + job + `","state":"done"}`)})
		fmt.Println(job, "matched", r.Matched)
	}
	ev, _ := l.Next()
	frame, _ := dispatch.EncodeEvent(ev, jsonrpc.StringID("listen-1"))
	fmt.Println(string(frame))
	// Output:
	// J1 matched 1
	// J2 matched 0
	// {"jsonrpc":"2.0","method":"notifications/jobs","params":{"jobId":"J1","state":"done","_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}
}
