package main

import (
	"context"
	"encoding/base64"

	"github.com/snodo-go/snodo/dispatch"
)

const templateURI = "test://template/{id}/data"

func resources() []dispatch.Option {
	return []dispatch.Option{
		dispatch.WithResource(dispatch.Resource{
			URI: "test://static-text", Name: "static-text", MimeType: "text/plain",
			Description: "A static text resource for testing.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
			return contents(dispatch.TextContents(req.URI, "text/plain", staticText)), nil
		}),
		dispatch.WithResource(dispatch.Resource{
			URI: "test://static-binary", Name: "static-binary", MimeType: "image/png",
			Description: "A static binary resource (a PNG image) for testing.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
			data, err := base64.StdEncoding.DecodeString(pngBase64)
			if err != nil {
				return nil, err
			}
			return contents(dispatch.BlobContents(req.URI, "image/png", data)), nil
		}),
		dispatch.WithResource(dispatch.Resource{
			URI: watchedURI, Name: "watched-resource", MimeType: "text/plain",
			Description: "A resource clients may subscribe to.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
			return contents(dispatch.TextContents(req.URI, "text/plain", "Watched resource content")), nil
		}),
		dispatch.WithResourceTemplate(dispatch.ResourceTemplate{
			URITemplate: templateURI, Name: "template", MimeType: "application/json",
			Description: "A resource template whose id is echoed in the data.",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
			id := req.Vars.Get("id")
			c, err := dispatch.JSONContents(req.URI, map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return contents(c), nil
		}),
	}
}

func contents(c *dispatch.ResourceContents) *dispatch.ReadResourceResult {
	return &dispatch.ReadResourceResult{Contents: []*dispatch.ResourceContents{c}}
}

// watchedURI is the resource clients subscribe to; the served fixture
// reports a change of it every watchedInterval.
const watchedURI = "test://watched-resource"
