// The dynamic registry: tools, prompts, resources and resource templates
// that change while the server runs.

package hub

import (
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Registry holds tools, prompts, resources and resource templates that may
// change while the server runs: a [dispatch.Catalog]. The Runtime stays
// immutable: it holds the registry (see [dispatch.WithCatalog]) and each
// request reads one consistent version of it, so a change never reaches a
// request half-way. After each change the registry publishes
// notifications/tools/list_changed, notifications/prompts/list_changed or
// notifications/resources/list_changed (for resources and templates
// alike) through its Hub, once the new list is what every later request
// sees.
//
// Components given to dispatch.New with WithTool, WithTypedTool,
// WithPrompt, WithResource and WithResourceTemplate move into the
// registry. Each change is checked with the same code as New. Its methods
// are safe for concurrent use, also from inside a handler.
type Registry struct {
	hub *Hub

	mu  sync.Mutex // serialises changes
	cur atomic.Pointer[dispatch.Components]
}

// NewRegistry returns an empty registry whose changes are published
// through h (nil publishes nothing).
func NewRegistry(h *Hub) *Registry {
	r := &Registry{hub: h}
	r.cur.Store(&dispatch.Components{})
	return r
}

// Components implements [dispatch.Catalog]: the current version.
func (r *Registry) Components() *dispatch.Components { return r.cur.Load() }

// Adopt implements [dispatch.Catalog]: it takes in a Runtime's own
// components. A name or URI the registry already holds, or a resource
// one of the other side's templates matches, is an error, and then
// nothing is moved. Adopting publishes no list change: no client of the
// new Runtime has listed anything yet.
func (r *Registry) Adopt(own *dispatch.Components) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	next, err := r.cur.Load().With(own)
	if err != nil {
		return err
	}
	r.cur.Store(next)
	return nil
}

// Tap follows the events of the registry's hub, so that a
// Runtime mounting one whose catalog is this registry relays its list
// changes. With no hub, fn is never called.
func (r *Registry) Tap(fn func(dispatch.Event)) (remove func()) {
	if r.hub == nil {
		return func() {}
	}
	return r.hub.Tap(fn)
}

// AddTool registers a tool under the rules of [dispatch.WithTool]; a name
// already registered is an error.
func (r *Registry) AddTool(t mcp.Tool, h dispatch.ToolHandler, opts ...dispatch.ComponentOption) error {
	return r.add(dispatch.EventToolsListChanged, dispatch.WithTool(t, h, opts...))
}

// AddTypedTool registers a typed tool under the rules of
// [dispatch.WithTypedTool] in r; a name already registered is an error.
func AddTypedTool[In, Out any](r *Registry, t mcp.Tool, h dispatch.TypedToolHandler[In, Out], opts ...dispatch.ComponentOption) error {
	return r.add(dispatch.EventToolsListChanged, dispatch.WithTypedTool(t, h, opts...))
}

// RemoveTool removes the named tool and reports whether it was there.
// Calls already running finish; later ones get "Unknown tool".
func (r *Registry) RemoveTool(name string) bool {
	return r.remove(dispatch.EventToolsListChanged, func(c *dispatch.Components) (*dispatch.Components, bool) {
		return c.Without(dispatch.KindTool, name)
	})
}

// AddPrompt registers a prompt under the rules of [dispatch.WithPrompt];
// a name already registered is an error.
func (r *Registry) AddPrompt(p mcp.Prompt, h dispatch.PromptHandler, opts ...dispatch.ComponentOption) error {
	return r.add(dispatch.EventPromptsListChanged, dispatch.WithPrompt(p, h, opts...))
}

// RemovePrompt removes the named prompt and reports whether it was there.
func (r *Registry) RemovePrompt(name string) bool {
	return r.remove(dispatch.EventPromptsListChanged, func(c *dispatch.Components) (*dispatch.Components, bool) {
		return c.Without(dispatch.KindPrompt, name)
	})
}

// AddResource registers a resource under the rules of
// [dispatch.WithResource]: a URI already registered, or one a registered
// template matches, is an error.
func (r *Registry) AddResource(res mcp.Resource, h dispatch.ResourceHandler) error {
	return r.add(dispatch.EventResourcesListChanged, dispatch.WithResource(res, h))
}

// RemoveResource removes the resource with this URI and reports whether
// it was there. Reads already running finish; later ones get the
// revision's resource-not-found error.
func (r *Registry) RemoveResource(uri string) bool {
	return r.remove(dispatch.EventResourcesListChanged, func(c *dispatch.Components) (*dispatch.Components, bool) {
		return c.Without(dispatch.KindResource, uri)
	})
}

// AddResourceTemplate registers a template under the rules of
// [dispatch.WithResourceTemplate]; it takes match precedence after the
// templates already registered. A URI template already registered, or
// one that matches a registered resource's URI, is an error.
func (r *Registry) AddResourceTemplate(t mcp.ResourceTemplate, h dispatch.ResourceHandler, opts ...dispatch.ComponentOption) error {
	return r.add(dispatch.EventResourcesListChanged, dispatch.WithResourceTemplate(t, h, opts...))
}

// RemoveResourceTemplate removes the template with this URI template and
// reports whether it was there.
func (r *Registry) RemoveResourceTemplate(uriTemplate string) bool {
	return r.remove(dispatch.EventResourcesListChanged, func(c *dispatch.Components) (*dispatch.Components, bool) {
		return c.Without(dispatch.KindResourceTemplate, uriTemplate)
	})
}

// add builds the component exactly as New would, adds it, and publishes
// the list change once the new version is visible.
func (r *Registry) add(kind dispatch.EventKind, opt dispatch.Option) error {
	c, err := dispatch.NewComponents(opt)
	if err != nil {
		return err
	}
	r.mu.Lock()
	next, err := r.cur.Load().With(c)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	r.cur.Store(next)
	r.mu.Unlock()
	r.changed(kind)
	return nil
}

// remove applies a removal and publishes the list change when it removed
// something.
func (r *Registry) remove(kind dispatch.EventKind, without func(*dispatch.Components) (*dispatch.Components, bool)) bool {
	r.mu.Lock()
	next, ok := without(r.cur.Load())
	if ok {
		r.cur.Store(next)
	}
	r.mu.Unlock()
	if ok {
		r.changed(kind)
	}
	return ok
}

// changed publishes a list change, after the new version is visible.
func (r *Registry) changed(kind dispatch.EventKind) {
	if r.hub != nil {
		_, _ = r.hub.Publish(dispatch.Event{Kind: kind})
	}
}
