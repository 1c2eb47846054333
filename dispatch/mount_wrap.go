// The entries a mount serves: a part's components under their mounted
// names, each handler asking the part's Authorizer and translating names
// and URIs on the way in and out.

package dispatch

import (
	"context"
	"strings"

	"github.com/snodo-go/snodo/internal/uritemplate"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// authorize asks the part's Authorizer about an invocation of its own
// component; unknown is the error the mounted name gets when concealed.
func (p *mountPart) authorize(ctx context.Context, info *RequestInfo, kind ComponentKind, name, uri string, unknown func() *jsonrpc.Error) error {
	if p.rt.authorizer == nil {
		return nil
	}
	return p.rt.authorizeUse(ctx, &Call{Info: *info}, kind, name, uri, unknown)
}

// innerURI is the part's own URI for a mounted one.
func (p *mountPart) innerURI(uri string) string {
	return strings.TrimPrefix(uri, p.prefix+mountSchemeSeparator)
}

func mountTool(p *mountPart, e *toolEntry, name string) *toolEntry {
	ne := *e
	ne.policy = &componentPolicy{} // the outer Runtime's defaults; the part's own apply inside
	ne.tool.Name = name
	inner := e.tool.Name
	ne.handler = func(ctx context.Context, req *CallToolRequest) (*mcp.CallToolResult, error) {
		if err := p.authorize(ctx, req.Info, KindTool, inner, "", func() *jsonrpc.Error { return unknownTool(name) }); err != nil {
			return nil, err
		}
		r := *req
		r.Name = inner
		res, err := p.rt.callTool(ctx, e, &r)
		if res != nil {
			res = p.rewriteToolResult(res)
		}
		return res, err
	}
	return &ne
}

func mountPrompt(p *mountPart, e *promptEntry, name string) *promptEntry {
	ne := *e
	ne.policy = &componentPolicy{}
	ne.prompt.Name = name
	inner := e.prompt.Name
	unknown := func() *jsonrpc.Error { return unknownPrompt(name) }
	ne.handler = func(ctx context.Context, req *GetPromptRequest) (*mcp.GetPromptResult, error) {
		if err := p.authorize(ctx, req.Info, KindPrompt, inner, "", unknown); err != nil {
			return nil, err
		}
		r := *req
		r.Name = inner
		res, err := p.rt.callPrompt(ctx, e, &r)
		if res != nil {
			res = p.rewritePromptResult(res)
		}
		return res, err
	}
	ne.complete = mountCompletions(p, e.policy, e.complete, KindPrompt, inner, unknown)
	return &ne
}

func mountResource(p *mountPart, e *resourceEntry, uri string) *resourceEntry {
	ne := *e
	ne.policy = &componentPolicy{}
	ne.resource.URI = uri
	ne.handler = func(ctx context.Context, req *ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		inner := p.innerURI(req.URI)
		if err := p.authorize(ctx, req.Info, KindResource, inner, "", func() *jsonrpc.Error { return resourceNotFound(req.URI) }); err != nil {
			return nil, err
		}
		r := *req
		r.URI = inner
		res, err := p.rt.callResource(ctx, e.policy, KindResource, e.resource.URI, e.handler, &r)
		if res != nil {
			res = p.rewriteReadResult(res)
		}
		return res, err
	}
	return &ne
}

func mountTemplate(p *mountPart, e *templateEntry, tmpl string, parsed *uritemplate.Template) *templateEntry {
	ne := *e
	ne.policy = &componentPolicy{}
	ne.template.URITemplate = tmpl
	ne.parsed = parsed
	inner := e.template.URITemplate
	ne.handler = func(ctx context.Context, req *ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := p.innerURI(req.URI)
		if err := p.authorize(ctx, req.Info, KindResourceTemplate, inner, uri, func() *jsonrpc.Error { return resourceNotFound(req.URI) }); err != nil {
			return nil, err
		}
		r := *req
		r.URI = uri
		res, err := p.rt.callResource(ctx, e.policy, KindResourceTemplate, inner, e.handler, &r)
		if res != nil {
			res = p.rewriteReadResult(res)
		}
		return res, err
	}
	ne.complete = mountCompletions(p, e.policy, e.complete, KindResourceTemplate, inner, func() *jsonrpc.Error {
		return (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown resource template: " + tmpl}).WithData(map[string]any{"uri": tmpl})
	})
	return &ne
}

// mountCompletions wraps a component's completion handlers: the request
// names the part's own component, the part's Authorizer is asked, and
// the part's completion policies apply (inside the outer Runtime's).
func mountCompletions(p *mountPart, policy *componentPolicy, complete map[string]CompletionHandler, kind ComponentKind, inner string, unknown func() *jsonrpc.Error) map[string]CompletionHandler {
	if len(complete) == 0 {
		return complete
	}
	out := make(map[string]CompletionHandler, len(complete))
	for arg, h := range complete {
		out[arg] = func(ctx context.Context, req *CompleteRequest) (*mcp.Completion, error) {
			if err := p.authorize(ctx, req.Info, kind, inner, "", unknown); err != nil {
				return nil, err
			}
			r := *req
			r.Name = inner
			return p.rt.complete(ctx, policy, kind, inner, h, &r) // the part's policies
		}
	}
	return out
}
