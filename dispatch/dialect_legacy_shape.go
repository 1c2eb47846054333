// The wire shapes of the initialize-era results.

package dispatch

import (
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Wire shapes of the initialize-era results. Against 2026-07-28 they have
// no resultType, no ttlMs or cacheScope, and no serverInfo in _meta (the
// server identifies itself once, in initialize). 2025-06-18 also has no
// icons, and an Implementation of name, title and version only.
type (
	wire25Initialize struct {
		ProtocolVersion string                 `json:"protocolVersion"`
		Capabilities    mcp.ServerCapabilities `json:"capabilities"`
		ServerInfo      mcp.Implementation     `json:"serverInfo"`
		Instructions    string                 `json:"instructions,omitempty"`
	}
	wire25ListTools struct {
		Tools      []mcp.Tool `json:"tools"`
		NextCursor string     `json:"nextCursor,omitempty"`
	}
	wire25ListPrompts struct {
		Prompts    []mcp.Prompt `json:"prompts"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}
	wire25ListResources struct {
		Resources  []mcp.Resource `json:"resources"`
		NextCursor string         `json:"nextCursor,omitempty"`
	}
	wire25ListTemplates struct {
		ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
		NextCursor        string                 `json:"nextCursor,omitempty"`
	}
	wire25ReadResource struct {
		Contents []*mcp.ResourceContents `json:"contents"`
		Meta     map[string]any          `json:"_meta,omitempty"`
	}
	wire25GetPrompt struct {
		Description string              `json:"description,omitempty"`
		Messages    []mcp.PromptMessage `json:"messages"`
		Meta        map[string]any      `json:"_meta,omitempty"`
	}
	wire25Complete struct {
		Completion *mcp.Completion `json:"completion"`
	}
	wire25CallTool struct {
		Content           []mcp.Content  `json:"content"`
		StructuredContent any            `json:"structuredContent,omitempty"`
		IsError           bool           `json:"isError,omitempty"`
		Meta              map[string]any `json:"_meta,omitempty"`
	}
)

func (d legacyDialect) ShapeResult(rt *Runtime, _ *Call, result any) (any, error) {
	old := d.version == mcp.Version20250618
	switch r := result.(type) {
	case *initializeResult:
		return &wire25Initialize{
			ProtocolVersion: r.handshake.ProtocolVersion, Capabilities: r.capabilities,
			ServerInfo: d.implementation(rt.info), Instructions: r.instructions,
		}, nil
	case emptyResult:
		return struct{}{}, nil
	case *listToolsResult:
		tools := make([]mcp.Tool, 0, len(r.tools))
		for i := range r.tools {
			if t := r.tools[i]; legacyCarries(&t) {
				if old {
					t.Icons = nil
				}
				tools = append(tools, t)
			}
		}
		return &wire25ListTools{Tools: tools, NextCursor: r.nextCursor}, nil
	case *listPromptsResult:
		prompts := nonNil(r.prompts)
		if old {
			prompts = withoutIcons(prompts, func(p *mcp.Prompt) { p.Icons = nil })
		}
		return &wire25ListPrompts{Prompts: prompts, NextCursor: r.nextCursor}, nil
	case *listResourcesResult:
		resources := nonNil(r.resources)
		if old {
			resources = withoutIcons(resources, func(r *mcp.Resource) { r.Icons = nil })
		}
		return &wire25ListResources{Resources: resources, NextCursor: r.nextCursor}, nil
	case *listTemplatesResult:
		templates := nonNil(r.templates)
		if old {
			templates = withoutIcons(templates, func(t *mcp.ResourceTemplate) { t.Icons = nil })
		}
		return &wire25ListTemplates{ResourceTemplates: templates, NextCursor: r.nextCursor}, nil
	case *mcp.ReadResourceResult:
		return &wire25ReadResource{Contents: r.Contents, Meta: r.Meta}, nil
	case *mcp.GetPromptResult:
		msgs := nonNil(r.Messages)
		if old {
			msgs = withoutIcons(msgs, func(m *mcp.PromptMessage) { m.Content = contentWithoutIcons(m.Content) })
		}
		return &wire25GetPrompt{Description: r.Description, Messages: msgs, Meta: r.Meta}, nil
	case *completeResult:
		return &wire25Complete{Completion: r.completion}, nil
	case *mcp.CallToolResult:
		content := nonNil(r.Content)
		if old {
			content = withoutIcons(content, func(c *mcp.Content) { *c = contentWithoutIcons(*c) })
		}
		structured, err := objectOnly(r.StructuredContent)
		if err != nil {
			return nil, err
		}
		return &wire25CallTool{Content: content, StructuredContent: structured, IsError: r.IsError, Meta: r.Meta}, nil
	case *extensionResult:
		return json.RawMessage(r.body), nil
	case *inputRequiredResult:
		// withClientRequests serves these; none reaches shaping.
		return nil, ErrNoClientChannel
	}
	return nil, fmt.Errorf("dispatch: no %s shape for %T", d.version, result)
}

// implementation projects the server's identity onto the revision's
// Implementation.
func (d legacyDialect) implementation(info mcp.Implementation) mcp.Implementation {
	if d.version == mcp.Version20250618 {
		return mcp.Implementation{Name: info.Name, Title: info.Title, Version: info.Version}
	}
	return info
}

// withoutIcons returns a copy of items with strip applied to each, so the
// Runtime's own components are never changed.
func withoutIcons[T any](items []T, strip func(*T)) []T {
	out := make([]T, len(items))
	copy(out, items)
	for i := range out {
		strip(&out[i])
	}
	return out
}

// contentWithoutIcons drops the icons of a resource link, the one content
// block that has them.
func contentWithoutIcons(c mcp.Content) mcp.Content {
	if l, ok := c.(*mcp.ResourceLink); ok && len(l.Icons) > 0 {
		cp := *l
		cp.Icons = nil
		return &cp
	}
	return c
}

// objectOnly keeps structuredContent only when it is a JSON object, the
// one shape the initialize-era revisions allow (a tool without an output
// schema may return any value on 2026-07-28; its text content still
// carries it).
func objectOnly(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := jsonwire.API.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, nil
	}
	return json.RawMessage(b), nil
}

// ShapeError gives an unknown resource the revision's own code, -32002,
// keeping its message and data.uri.
func (legacyDialect) ShapeError(_ *Runtime, _ *Call, e *jsonrpc.Error) *jsonrpc.Error {
	switch e.Data.(type) {
	case resourceNotFoundData, *resourceNotFoundData:
		c := *e
		c.Code = mcp.CodeResourceNotFound
		return &c
	}
	return e
}
