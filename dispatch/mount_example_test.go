package dispatch_test

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// One Runtime serves two others under prefixes: tool "search" of the
// part mounted as "github" is "github_search", its resource
// "repo://snodo" is "github+repo://snodo", and a read of that URI is
// routed back to the part.
func ExampleWithMount() {
	info := func(name string) mcp.Implementation { return mcp.Implementation{Name: name, Version: "1.0.0"} }
	search := func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("searched by " + r.Name), nil
	}
	readme := func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "# snodo")}}, nil
	}
	github, err := dispatch.New(info("github"),
		dispatch.WithTool(mcp.Tool{Name: "search"}, search),
		dispatch.WithResource(mcp.Resource{URI: "repo://snodo", Name: "snodo"}, readme))
	if err != nil {
		panic(err)
	}
	docs, err := dispatch.New(info("docs"), dispatch.WithTool(mcp.Tool{Name: "search"}, search))
	if err != nil {
		panic(err)
	}
	gateway, err := dispatch.New(info("gateway"),
		dispatch.WithMount("github", github),
		dispatch.WithMount("docs", docs))
	if err != nil {
		panic(err)
	}
	for _, t := range gateway.Tools() {
		fmt.Println(t.Name)
	}
	for _, r := range gateway.Resources() {
		prefix, inner, _ := dispatch.UnmountURI(r.URI)
		fmt.Println(r.URI, "is", inner, "of", prefix)
	}
	// Output:
	// docs_search
	// github_search
	// github+repo://snodo is repo://snodo of github
}
