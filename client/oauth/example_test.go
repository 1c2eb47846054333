package oauth_test

import (
	"context"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/client/oauth"
)

// A client that logs in to a protected MCP server when it is refused:
// the user is shown the authorization URL, and the redirect comes back to
// a listener on 127.0.0.1.
func ExampleNew() {
	ctx := context.Background()
	url := "https://mcp.example.com/mcp"
	flow, err := oauth.New(url, oauth.Config{
		ClientMetadataURL: "https://app.example.com/oauth/client.json", // or ClientID, or neither (dynamic registration)
		OpenURL: func(_ context.Context, authURL string) error {
			fmt.Println("Open this page to log in:", authURL)
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	tr := &client.HTTPTransport{URL: url}
	tr.TokenSource = flow
	c, err := client.New(ctx, tr, client.WithLimits(client.Limits{ProbeTimeout: 5 * time.Minute})) // the first request waits for the login
	if err != nil {
		panic(err)
	}
	defer c.Close()
	tools, _ := c.ListTools(ctx)
	fmt.Println(len(tools), "tools")
}
