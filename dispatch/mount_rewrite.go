// URI rewriting in what a mounted part returns: its resource URIs in the
// mounted form, so that a client reading them is routed back to it.

package dispatch

import "github.com/snodo-go/snodo/mcp"

// serves reports whether the part serves uri (a resource or a template
// match) now.
func (p *mountPart) serves(uri string) bool {
	s := p.rt.catalog.snapshot()
	if _, ok := s.resources[uri]; ok {
		return true
	}
	t, _ := s.matchTemplate(uri)
	return t != nil
}

// rewriteReadResult returns res with every contents' URI mounted: what a
// read of the part returns is in the part's namespace. res is not
// changed (the part may share it).
func (p *mountPart) rewriteReadResult(res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	out := *res
	out.Contents = make([]*mcp.ResourceContents, len(res.Contents))
	for i, rc := range res.Contents {
		if rc == nil {
			continue // the Runtime refuses it
		}
		c := *rc
		c.URI = mountedURI(p.prefix, c.URI)
		out.Contents[i] = &c
	}
	return &out
}

// rewriteContent returns c with the URI of a resource link or an
// embedded resource the part serves mounted, and whether it changed.
func (p *mountPart) rewriteContent(c mcp.Content) (mcp.Content, bool) {
	switch v := c.(type) {
	case *mcp.ResourceLink:
		if p.serves(v.URI) {
			l := *v
			l.URI = mountedURI(p.prefix, v.URI)
			return &l, true
		}
	case *mcp.EmbeddedResource:
		if v.Resource != nil && p.serves(v.Resource.URI) {
			e, rc := *v, *v.Resource
			rc.URI = mountedURI(p.prefix, rc.URI)
			e.Resource = &rc
			return &e, true
		}
	}
	return c, false
}

// rewriteToolResult mounts the resource URIs of a tool result's content.
func (p *mountPart) rewriteToolResult(res *mcp.CallToolResult) *mcp.CallToolResult {
	var out *mcp.CallToolResult
	for i, c := range res.Content {
		if nc, changed := p.rewriteContent(c); changed {
			if out == nil {
				cp := *res
				cp.Content = append([]mcp.Content(nil), res.Content...)
				out = &cp
			}
			out.Content[i] = nc
		}
	}
	if out == nil {
		return res
	}
	return out
}

// rewritePromptResult mounts the resource URIs of a prompt's messages.
func (p *mountPart) rewritePromptResult(res *mcp.GetPromptResult) *mcp.GetPromptResult {
	var out *mcp.GetPromptResult
	for i, m := range res.Messages {
		if nc, changed := p.rewriteContent(m.Content); changed {
			if out == nil {
				cp := *res
				cp.Messages = append([]mcp.PromptMessage(nil), res.Messages...)
				out = &cp
			}
			out.Messages[i].Content = nc
		}
	}
	if out == nil {
		return res
	}
	return out
}
