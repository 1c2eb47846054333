// The resources/list, resources/templates/list and resources/read
// operations.

package dispatch

import (
	"context"
	"errors"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// listResourcesResult is the neutral result of resources/list.
type listResourcesResult struct {
	resources  []mcp.Resource
	nextCursor string
}

// listTemplatesResult is the neutral result of resources/templates/list.
type listTemplatesResult struct {
	templates  []mcp.ResourceTemplate
	nextCursor string
}

func opResourcesList(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	snap := rt.catalog.snapshot()
	uri := func(e *resourceEntry) string { return e.resource.URI }
	page, next, err := pageOf(rt, c, filter(ctx, rt, c, snap, snap.resourceList, KindResource, uri), uri)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Resource, len(page))
	for i, e := range page {
		out[i] = e.resource
	}
	return &listResourcesResult{resources: out, nextCursor: next}, nil
}

func opTemplatesList(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	snap := rt.catalog.snapshot()
	tmpl := func(e *templateEntry) string { return e.template.URITemplate }
	page, next, err := pageOf(rt, c, filter(ctx, rt, c, snap, snap.templateList, KindResourceTemplate, tmpl), tmpl)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceTemplate, len(page))
	for i, e := range page {
		out[i] = e.template
	}
	return &listTemplatesResult{templates: out, nextCursor: next}, nil
}

type readResourceParams struct {
	URI *string `json:"uri"`
}

func opResourcesRead(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	var p readResourceParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == nil {
		return nil, invalidParams("Invalid params: resources/read needs a uri")
	}
	uri := *p.URI
	if err := checkAbsoluteURI(uri); err != nil {
		return nil, invalidParams("Invalid params: uri is " + err.Error())
	}
	notFound := resourceNotFound(uri)
	snap := rt.catalog.snapshot()
	req := &ReadResourceRequest{URI: uri, Info: &c.Info, Input: c.Input}
	var res *mcp.ReadResourceResult
	var err error
	if e, ok := snap.resources[uri]; ok {
		if err := rt.authorizeUse(ctx, c, KindResource, uri, "", func() *jsonrpc.Error { return notFound }); err != nil {
			return nil, err
		}
		res, err = rt.callResource(ctx, e.policy, KindResource, uri, e.handler, req)
	} else if t, vals := snap.matchTemplate(uri); t != nil {
		if err := rt.authorizeUse(ctx, c, KindResourceTemplate, t.template.URITemplate, uri, func() *jsonrpc.Error { return notFound }); err != nil {
			return nil, err
		}
		req.Vars = vals
		res, err = rt.callResource(ctx, t.policy, KindResourceTemplate, t.template.URITemplate, t.handler, req)
	} else {
		return nil, notFound
	}
	if err != nil {
		var ir *InputRequired
		switch {
		case errors.As(err, &ir):
			return rt.inputRequired(c, ir)
		case errors.Is(err, ErrResourceNotFound):
			return nil, notFound
		}
		return nil, rt.callbackError(c, err)
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, notFound
	}
	for _, rc := range res.Contents {
		if rc == nil {
			return nil, rt.internal(c, "resource "+uri, errors.New("nil contents"))
		}
	}
	return res, nil
}
