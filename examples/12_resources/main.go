// Command 12_resources serves resources: fixed URIs listed by
// resources/list, RFC 6570 templates listed by resources/templates/list
// and matched by resources/read (registration order is precedence), text
// and binary contents, cache hints, and the protocol's "not found".
//
//	go run ./examples/12_resources          # serves over stdio
//	go run ./examples/12_resources -check   # exercises it in process
package main

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
)

// docs is the application's content.
var docs = map[string]string{
	"intro":   "# Introduction\nWelcome.",
	"install": "# Install\ngo get github.com/snodo-go/snodo",
}

func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "docs", Version: "1.0.0"},
		// A fixed resource: listed, read by its exact URI.
		dispatch.WithResource(mcp.Resource{URI: "docs://index", Name: "index", MIMEType: "text/plain"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text := ""
				for _, name := range []string{"install", "intro"} {
					text += "docs://pages/" + name + "\n"
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", text)}}, nil
			}),
		// A template: one handler for every page; the variable arrives
		// in req.Vars.
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://pages/{name}", Name: "page", MIMEType: "text/markdown"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text, ok := docs[req.Vars.Get("name")]
				if !ok {
					return nil, dispatch.ErrResourceNotFound // -32602 with data.uri
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/markdown", text)}}, nil
			}),
		// Binary contents are base64 on the wire.
		dispatch.WithResource(mcp.Resource{URI: "docs://logo.png", Name: "logo", MIMEType: "image/png"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.BlobContents(req.URI, "image/png", png)}}, nil
			}),
		// The docs are the same for everyone and change rarely: clients
		// and shared caches may keep lists and reads for five minutes.
		dispatch.WithCacheHint(dispatch.CacheResources, 5*time.Minute, mcp.CachePublic),
	)
}

func main() { excheck.Main(newRuntime, checks) }
