package main

import (
	"context"
	"encoding/base64"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

const templateURI = "test://template/{id}/data"

func resources() []dispatch.Option {
	return []dispatch.Option{
		dispatch.WithResource(mcp.Resource{
			URI: "test://static-text", Name: "static-text", MIMEType: "text/plain",
			Description: "A static text resource for testing.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return contents(mcp.TextContents(req.URI, "text/plain", staticText)), nil
		}),
		dispatch.WithResource(mcp.Resource{
			URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
			Description: "A static binary resource (a PNG image) for testing.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			data, err := base64.StdEncoding.DecodeString(pngBase64)
			if err != nil {
				return nil, err
			}
			return contents(mcp.BlobContents(req.URI, "image/png", data)), nil
		}),
		dispatch.WithResource(mcp.Resource{
			URI: watchedURI, Name: "watched-resource", MIMEType: "text/plain",
			Description: "A resource clients may subscribe to.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return contents(mcp.TextContents(req.URI, "text/plain", "Watched resource content")), nil
		}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{
			URITemplate: templateURI, Name: "template", MIMEType: "application/json",
			Description: "A resource template whose id is echoed in the data.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := req.Vars.Get("id")
			c, err := mcp.JSONContents(req.URI, map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return contents(c), nil
		}),
	}
}

func contents(c *mcp.ResourceContents) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
}

// watchedURI is the resource clients subscribe to; the served fixture
// reports a change of it every watchedInterval.
const watchedURI = "test://watched-resource"
