// The backend's catalog: the remote's lists, bounded, registered in the
// hub.Registry and kept in step with it.

package proxy

import (
	"context"
	"fmt"
	"reflect"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/uritemplate"
	"github.com/snodo-go/snodo/mcp"
)

// catalogState is what the backend has registered, as the remote
// described it.
type catalogState struct {
	tools     map[string]mcp.Tool
	prompts   map[string]mcp.Prompt
	resources map[string]mcp.Resource
	templates map[string]mcp.ResourceTemplate
}

// remoteLists is one listing of the remote.
type remoteLists struct {
	tools     []mcp.Tool
	prompts   []mcp.Prompt
	resources []mcp.Resource
	templates []mcp.ResourceTemplate
}

// Refresh lists the remote's components again and brings the Runtime in
// step: what is gone is removed, what is new or changed is registered,
// and each change publishes its list change. Lists the client has cached
// within their ttlMs are not asked for again. Watching list changes calls
// it; an application may call it too.
func (b *Backend) Refresh(ctx context.Context) error {
	b.refreshMu.Lock()
	defer b.refreshMu.Unlock()
	lists, err := b.list(ctx)
	if err != nil {
		return b.failure("listing", err)
	}
	b.bound(lists)
	b.apply(lists)
	return nil
}

// list fetches every list the remote's capabilities offer.
func (b *Backend) list(ctx context.Context) (*remoteLists, error) {
	caps := b.client.Server().Capabilities
	var l remoteLists
	var err error
	if caps.Tools != nil {
		if l.tools, err = b.client.ListTools(ctx); err != nil {
			return nil, err
		}
	}
	if caps.Prompts != nil {
		if l.prompts, err = b.client.ListPrompts(ctx); err != nil {
			return nil, err
		}
	}
	if caps.Resources != nil {
		if l.resources, err = b.client.ListResources(ctx); err != nil {
			return nil, err
		}
		if l.templates, err = b.client.ListResourceTemplates(ctx); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

// bound cuts the lists to Limits.MaxItems in all, logging what is left
// out.
func (b *Backend) bound(l *remoteLists) {
	left := b.cfg.limits.MaxItems
	cut := func(n int) int {
		keep := min(n, left)
		left -= keep
		return keep
	}
	total := len(l.tools) + len(l.prompts) + len(l.resources) + len(l.templates)
	l.tools = l.tools[:cut(len(l.tools))]
	l.prompts = l.prompts[:cut(len(l.prompts))]
	l.resources = l.resources[:cut(len(l.resources))]
	l.templates = l.templates[:cut(len(l.templates))]
	if kept := b.cfg.limits.MaxItems - left; kept < total {
		b.logger.Warn("proxy: the backend's catalog is over its bound; items are left out",
			"backend", b.name, "items", total, "MaxItems", b.cfg.limits.MaxItems)
	}
}

// apply registers the differences between what is registered and l.
func (b *Backend) apply(l *remoteLists) {
	next := catalogState{tools: map[string]mcp.Tool{}, prompts: map[string]mcp.Prompt{},
		resources: map[string]mcp.Resource{}, templates: map[string]mcp.ResourceTemplate{}}
	for _, t := range l.tools {
		next.tools[t.Name] = t
	}
	for _, p := range l.prompts {
		next.prompts[p.Name] = p
	}
	for _, r := range l.resources {
		next.resources[r.URI] = r
	}
	for _, t := range l.templates {
		next.templates[t.URITemplate] = t
	}
	syncKind(b.have.tools, next.tools, b.reg.RemoveTool, func(t mcp.Tool) error { return b.reg.AddTool(t, b.callTool) }, b.skip("tool"))
	syncKind(b.have.prompts, next.prompts, b.reg.RemovePrompt, func(p mcp.Prompt) error {
		var opts []dispatch.ComponentOption
		if b.canComplete() {
			for _, a := range p.Arguments {
				opts = append(opts, dispatch.WithCompletion(a.Name, b.complete))
			}
		}
		return b.reg.AddPrompt(p, b.getPrompt, opts...)
	}, b.skip("prompt"))
	syncKind(b.have.resources, next.resources, b.reg.RemoveResource, func(r mcp.Resource) error { return b.reg.AddResource(r, b.readResource) }, b.skip("resource"))
	syncKind(b.have.templates, next.templates, b.reg.RemoveResourceTemplate, func(t mcp.ResourceTemplate) error {
		var opts []dispatch.ComponentOption
		if parsed, err := uritemplate.Parse(t.URITemplate); err == nil && b.canComplete() {
			for _, v := range parsed.Names() {
				opts = append(opts, dispatch.WithCompletion(v, b.complete))
			}
		}
		return b.reg.AddResourceTemplate(t, b.readResource, opts...)
	}, b.skip("resource template"))
	// What failed to register is not kept, so a later refresh tries again.
	b.have = next
}

// skip logs a component the Runtime refused.
func (b *Backend) skip(kind string) func(key string, err error) {
	return func(key string, err error) {
		b.logger.Warn(fmt.Sprintf("proxy: the backend's %s is left out", kind), "backend", b.name, "key", key, "error", err)
	}
}

func (b *Backend) canComplete() bool { return b.client.Server().Capabilities.Completions != nil }

// syncKind removes from the registry what have has and next lacks or has
// changed, then adds what next has new or changed. A failed add is
// reported and dropped from next.
func syncKind[T any](have, next map[string]T, remove func(string) bool, add func(T) error, failed func(string, error)) {
	for k, old := range have {
		if v, ok := next[k]; !ok || !reflect.DeepEqual(old, v) {
			remove(k)
		}
	}
	for k, v := range next {
		if old, ok := have[k]; ok && reflect.DeepEqual(old, v) {
			continue
		}
		if err := add(v); err != nil {
			failed(k, err)
			delete(next, k)
		}
	}
}
