// The dynamic registry: tools, prompts, resources and resource templates
// that change while the server runs.

package dispatch

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/mcp"
)

// Registry holds tools, prompts, resources and resource templates that may
// change while the server runs. The Runtime stays immutable: it holds the
// registry (see [WithRegistry]) and each request reads one consistent
// snapshot of it, so a change never reaches a request half-way. After each
// change the registry publishes notifications/tools/list_changed,
// notifications/prompts/list_changed or notifications/resources/list_changed
// (for resources and templates alike) through its Hub, once the new list
// is what every later request sees.
//
// Components given to New with WithTool, WithTypedTool, WithPrompt,
// WithResource and WithResourceTemplate move into the registry. Each
// change is checked with the same code as New. Its methods are safe for
// concurrent use, also from inside a handler.
type Registry struct {
	hub *Hub

	mu        sync.Mutex // serialises changes
	tools     map[string]*toolEntry
	prompts   map[string]*promptEntry
	resources map[string]*resourceEntry
	templates []*templateEntry // registration order: match precedence
	cur       atomic.Pointer[snapshot]
}

// NewRegistry returns an empty registry whose changes are published
// through hub (nil publishes nothing).
func NewRegistry(hub *Hub) *Registry {
	r := &Registry{hub: hub, tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{},
		resources: map[string]*resourceEntry{}}
	r.publishLocked()
	return r
}

// WithRegistry makes the Runtime read its tools, prompts, resources and
// resource templates from r. The Runtime then advertises the tools,
// prompts, resources and completions capabilities even while a list is
// empty, since it may fill up at run time (with listChanged when
// [WithSubscriptions] is also given). completion/complete serves what is
// registered when the request arrives: an argument or variable with no
// completion handler gets no values, a component removed is unknown.
func WithRegistry(r *Registry) Option {
	return optionFunc(func(b *builder) error {
		if r == nil {
			return errors.New("dispatch: nil registry")
		}
		b.registry = r
		return nil
	})
}

// AddTool registers a tool under the rules of [WithTool]; a name already
// registered is an error.
func (r *Registry) AddTool(t mcp.Tool, h ToolHandler, opts ...ComponentOption) error {
	return r.addTool(t.Name, WithTool(t, h, opts...))
}

// AddTypedTool registers a typed tool under the rules of [WithTypedTool]
// in r; a name already registered is an error.
func AddTypedTool[In, Out any](r *Registry, t mcp.Tool, h TypedToolHandler[In, Out], opts ...ComponentOption) error {
	return r.addTool(t.Name, WithTypedTool(t, h, opts...))
}

// addTool builds the tool's entry exactly as New would, then adds it.
func (r *Registry) addTool(name string, opt Option) error {
	b := scratchBuilder()
	if err := opt.applyRuntime(b); err != nil {
		return err
	}
	e := b.tools[name]
	return r.change(EventToolsListChanged, func() error {
		if _, dup := r.tools[name]; dup {
			return fmt.Errorf("dispatch: tool %q registered twice", name)
		}
		r.tools[name] = e
		return nil
	})
}

// RemoveTool removes the named tool and reports whether it was there.
// Calls already running finish; later ones get "Unknown tool".
func (r *Registry) RemoveTool(name string) bool {
	return r.remove(EventToolsListChanged, func() bool { return deleteKey(r.tools, name) })
}

// AddPrompt registers a prompt under the rules of [WithPrompt]; a name
// already registered is an error.
func (r *Registry) AddPrompt(p mcp.Prompt, h PromptHandler, opts ...ComponentOption) error {
	b := scratchBuilder()
	if err := WithPrompt(p, h, opts...).applyRuntime(b); err != nil {
		return err
	}
	return r.change(EventPromptsListChanged, func() error {
		if _, dup := r.prompts[p.Name]; dup {
			return fmt.Errorf("dispatch: prompt %q registered twice", p.Name)
		}
		r.prompts[p.Name] = b.prompts[p.Name]
		return nil
	})
}

// RemovePrompt removes the named prompt and reports whether it was there.
func (r *Registry) RemovePrompt(name string) bool {
	return r.remove(EventPromptsListChanged, func() bool { return deleteKey(r.prompts, name) })
}

// AddResource registers a resource under the rules of [WithResource]: a
// URI already registered, or one a registered template matches, is an
// error.
func (r *Registry) AddResource(res mcp.Resource, h ResourceHandler) error {
	b := scratchBuilder()
	if err := WithResource(res, h).applyRuntime(b); err != nil {
		return err
	}
	e := b.resources[res.URI]
	return r.change(EventResourcesListChanged, func() error {
		if _, dup := r.resources[res.URI]; dup {
			return fmt.Errorf("dispatch: resource %q registered twice", res.URI)
		}
		if err := checkResourceOverlap(map[string]*resourceEntry{res.URI: e}, r.templates); err != nil {
			return err
		}
		r.resources[res.URI] = e
		return nil
	})
}

// RemoveResource removes the resource with this URI and reports whether
// it was there. Reads already running finish; later ones get the
// revision's resource-not-found error.
func (r *Registry) RemoveResource(uri string) bool {
	return r.remove(EventResourcesListChanged, func() bool { return deleteKey(r.resources, uri) })
}

// AddResourceTemplate registers a template under the rules of
// [WithResourceTemplate]; it takes match precedence after the templates
// already registered. A URI template already registered, or one that
// matches a registered resource's URI, is an error.
func (r *Registry) AddResourceTemplate(t mcp.ResourceTemplate, h ResourceHandler, opts ...ComponentOption) error {
	b := scratchBuilder()
	if err := WithResourceTemplate(t, h, opts...).applyRuntime(b); err != nil {
		return err
	}
	e := b.templates[0]
	return r.change(EventResourcesListChanged, func() error {
		for _, have := range r.templates {
			if have.template.URITemplate == t.URITemplate {
				return fmt.Errorf("dispatch: resource template %q registered twice", t.URITemplate)
			}
		}
		if err := checkResourceOverlap(r.resources, []*templateEntry{e}); err != nil {
			return err
		}
		r.templates = append(slices.Clip(r.templates), e)
		return nil
	})
}

// RemoveResourceTemplate removes the template with this URI template and
// reports whether it was there.
func (r *Registry) RemoveResourceTemplate(uriTemplate string) bool {
	return r.remove(EventResourcesListChanged, func() bool {
		i := slices.IndexFunc(r.templates, func(e *templateEntry) bool { return e.template.URITemplate == uriTemplate })
		if i < 0 {
			return false
		}
		r.templates = slices.Delete(slices.Clone(r.templates), i, i+1)
		return true
	})
}

// change applies edit under the lock; when it succeeds the new version is
// published and then the list change.
func (r *Registry) change(kind EventKind, edit func() error) error {
	r.mu.Lock()
	if err := edit(); err != nil {
		r.mu.Unlock()
		return err
	}
	r.publishLocked()
	r.mu.Unlock()
	r.changed(kind)
	return nil
}

// remove is change for a removal, which only reports whether it removed.
func (r *Registry) remove(kind EventKind, del func() bool) bool {
	return r.change(kind, func() error {
		if !del() {
			return errNothingRemoved
		}
		return nil
	}) == nil
}

var errNothingRemoved = errors.New("dispatch: nothing to remove")

func deleteKey[V any](m map[string]V, k string) bool {
	if _, ok := m[k]; !ok {
		return false
	}
	delete(m, k)
	return true
}

// scratchBuilder is a builder that only collects components, so the
// registry checks and compiles them with the same code as New.
func scratchBuilder() *builder {
	return &builder{rt: &Runtime{}, tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{},
		resources: map[string]*resourceEntry{}, extensions: map[string]*Extension{}, extRoutes: map[string]*extensionRoute{}}
}

// publishLocked makes the current contents the version requests read.
// The maps and the template list are copied: the published version never
// changes.
func (r *Registry) publishLocked() {
	r.cur.Store(newSnapshot(cloneMap(r.tools), cloneMap(r.prompts), cloneMap(r.resources), slices.Clone(r.templates)))
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// changed publishes a list change, after the new version is visible.
func (r *Registry) changed(kind EventKind) {
	if r.hub != nil {
		_, _ = r.hub.Publish(Event{Kind: kind})
	}
}

// bind moves a Runtime's own components into the registry and returns
// the Runtime's catalog, the registry itself. A name or URI the registry
// already holds, or a resource one of the other side's templates matches,
// is an error, and then nothing is moved.
func (r *Registry) bind(tools map[string]*toolEntry, prompts map[string]*promptEntry, resources map[string]*resourceEntry, templates []*templateEntry) (catalog, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range tools {
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("dispatch: tool %q is already in the registry", name)
		}
	}
	for name := range prompts {
		if _, dup := r.prompts[name]; dup {
			return nil, fmt.Errorf("dispatch: prompt %q is already in the registry", name)
		}
	}
	for uri := range resources {
		if _, dup := r.resources[uri]; dup {
			return nil, fmt.Errorf("dispatch: resource %q is already in the registry", uri)
		}
	}
	for _, t := range templates {
		if slices.ContainsFunc(r.templates, func(e *templateEntry) bool { return e.template.URITemplate == t.template.URITemplate }) {
			return nil, fmt.Errorf("dispatch: resource template %q is already in the registry", t.template.URITemplate)
		}
	}
	if err := checkResourceOverlap(resources, r.templates); err != nil {
		return nil, err
	}
	if err := checkResourceOverlap(r.resources, templates); err != nil {
		return nil, err
	}
	if len(tools)+len(prompts)+len(resources)+len(templates) > 0 {
		for name, e := range tools {
			r.tools[name] = e
		}
		for name, e := range prompts {
			r.prompts[name] = e
		}
		for uri, e := range resources {
			r.resources[uri] = e
		}
		r.templates = append(slices.Clip(r.templates), templates...)
		r.publishLocked()
	}
	return registryCatalog{r}, nil
}

// registryCatalog is the catalog of a Runtime with a registry: the
// registry's current version.
type registryCatalog struct{ reg *Registry }

func (c registryCatalog) snapshot() *snapshot { return c.reg.cur.Load() }
