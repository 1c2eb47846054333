package oauth_test

import (
	"context"
	"log"
	"net"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// A protected MCP server on the native listener: JWT access tokens from
// one authorization server, and a scope per tool.
func ExampleNewMiddleware() {
	const resource = "https://mcp.example.com/mcp" // the URL clients use
	const issuer = "https://auth.example.com"

	rt, err := dispatch.New(mcp.Implementation{Name: "files", Version: "1.0.0"},
		dispatch.WithAuthorizer(&oauth.ScopePolicy{Tools: map[string][]string{"delete_file": {"files:write"}}}),
		dispatch.WithTool(mcp.Tool{Name: "delete_file"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("deleted"), nil
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	verifier, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: issuer, Audience: resource})
	if err != nil {
		log.Fatal(err)
	}
	mw, err := oauth.NewMiddleware(oauth.ResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		ScopesSupported:      []string{"files:read"},
	}, verifier)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:8443") // behind the TLS proxy that serves the resource URL
	if err != nil {
		log.Fatal(err)
	}
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithListener(ln), streamablehttp.WithHTTPMiddleware(mw.Wrap))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
}
