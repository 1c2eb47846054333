package proxy_test

import (
	"context"
	"fmt"
	"log"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// A gateway serving a remote server under the prefix "weather". The
// remote here runs in the same process; &client.CommandTransport{Path: "weather-server"}
// or &client.HTTPTransport{URL: "http://127.0.0.1:8080/mcp"} reach a real one.
func ExampleGroup() {
	remote, err := dispatch.New(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "forecast"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("sunny"), nil
		}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	backends := proxy.NewGroup(proxy.GroupLimits{})
	defer backends.Close()
	if _, err := backends.Dial(ctx, "weather", inprocess.New(remote)); err != nil {
		log.Fatal(err)
	}
	gateway, err := dispatch.New(mcp.Implementation{Name: "gateway", Version: "1.0.0"}, backends.Mounts()...)
	if err != nil {
		log.Fatal(err)
	}

	c, err := client.New(ctx, inprocess.New(gateway))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "weather_forecast", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: sunny
}

// Dial serves one remote server as a Runtime of its own.
func ExampleDial() {
	remote, err := dispatch.New(mcp.Implementation{Name: "notes", Version: "1.0.0"},
		dispatch.WithResource(mcp.Resource{URI: "notes://today", Name: "today"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "buy milk")}}, nil
			}))
	if err != nil {
		log.Fatal(err)
	}
	b, err := proxy.Dial(context.Background(), inprocess.New(remote))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	fmt.Println(b.Name(), b.Server().ProtocolVersion)
	for _, r := range b.Runtime().Resources() {
		fmt.Println(r.URI)
	}
	// Output:
	// notes 2026-07-28
	// notes://today
}
