package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// A client of a server in the same process. Over stdio or HTTP only the
// transport changes: &client.CommandTransport{Path: "my-server"} or
// &client.HTTPTransport{URL: "http://127.0.0.1:8080/mcp"}.
func Example() {
	rt, err := dispatch.New(mcp.Implementation{Name: "notes", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "count", Description: "Counts to three."},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				for i := 1; i <= 3; i++ {
					if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3}); err != nil {
						return nil, err
					}
				}
				return mcp.TextResult("done"), nil
			}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.New(ctx, inprocess.New(rt))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println(c.Server().ProtocolVersion, c.Server().Implementation.Name)
	res, err := c.CallTool(ctx, "count", nil, client.WithProgress(func(p mcp.Progress) {
		fmt.Printf("progress %v/%v\n", p.Progress, p.Total)
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mcp.TextOf(res.Content))
	// Output:
	// 2026-07-28 notes
	// progress 1/3
	// progress 2/3
	// progress 3/3
	// done
}

// A server that needs input asks for it; the registered handler answers
// and the client retries until the call completes.
func ExampleWithElicitation() {
	rt, err := dispatch.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "greet", Description: "Greets the user by name."},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if req.Input != nil {
					if r, ok := req.Input.Elicitation("name"); ok && r.Action == "accept" {
						return mcp.TextResult(fmt.Sprintf("Hello, %v!", r.Content["name"])), nil
					}
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"name": mcp.ElicitForm("What is your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
				}}
			}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.New(ctx, inprocess.New(rt), client.WithElicitation(
		func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "greet", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mcp.TextOf(res.Content))
	// Output:
	// asked: What is your name?
	// Hello, Ada!
}
