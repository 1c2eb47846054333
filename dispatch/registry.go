package dispatch

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/mcp"
)

// Registry holds tools and prompts that may change while the server runs.
// The Runtime stays immutable: it holds the registry (see [WithRegistry])
// and each request reads one consistent snapshot of it, so a change never
// reaches a request half-way. After each change the registry publishes
// notifications/tools/list_changed or notifications/prompts/list_changed
// through its Hub, once the new list is what every later request sees.
//
// Tools and prompts given to New with WithTool, WithTypedTool and
// WithPrompt move into the registry. Its methods are safe for concurrent
// use, also from inside a handler.
type Registry struct {
	hub *Hub

	mu      sync.Mutex // serialises changes
	tools   map[string]*toolEntry
	prompts map[string]*promptEntry
	cur     atomic.Pointer[registryLists]
}

// registryLists is one immutable version of a registry's contents.
type registryLists struct {
	tools      map[string]*toolEntry
	toolList   []*toolEntry
	prompts    map[string]*promptEntry
	promptList []*promptEntry
}

// NewRegistry returns an empty registry whose changes are published
// through hub (nil publishes nothing).
func NewRegistry(hub *Hub) *Registry {
	r := &Registry{hub: hub, tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{}}
	r.publishLocked()
	return r
}

// WithRegistry makes the Runtime read its tools and prompts from r. The
// Runtime then advertises the tools and prompts capabilities even while
// a list is empty, since it may fill up at run time (with listChanged
// when [WithSubscriptions] is also given).
//
// The completions capability is derived when New runs: a prompt with
// completion handlers added later completes only if the Runtime already
// advertised completions.
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
func (r *Registry) AddTool(t mcp.Tool, h ToolHandler) error {
	return r.addTool(t.Name, WithTool(t, h))
}

// AddTypedTool registers a typed tool under the rules of [WithTypedTool]
// in r; a name already registered is an error.
func AddTypedTool[In, Out any](r *Registry, t mcp.Tool, h TypedToolHandler[In, Out]) error {
	return r.addTool(t.Name, WithTypedTool(t, h))
}

// addTool builds the tool's entry exactly as New would, then adds it.
func (r *Registry) addTool(name string, opt Option) error {
	b := scratchBuilder()
	if err := opt.applyRuntime(b); err != nil {
		return err
	}
	e := b.tools[name]
	r.mu.Lock()
	if _, dup := r.tools[name]; dup {
		r.mu.Unlock()
		return fmt.Errorf("dispatch: tool %q registered twice", name)
	}
	r.tools[name] = e
	r.publishLocked()
	r.mu.Unlock()
	r.changed(EventToolsListChanged)
	return nil
}

// RemoveTool removes the named tool and reports whether it was there.
// Calls already running finish; later ones get "Unknown tool".
func (r *Registry) RemoveTool(name string) bool {
	r.mu.Lock()
	if _, ok := r.tools[name]; !ok {
		r.mu.Unlock()
		return false
	}
	delete(r.tools, name)
	r.publishLocked()
	r.mu.Unlock()
	r.changed(EventToolsListChanged)
	return true
}

// AddPrompt registers a prompt under the rules of [WithPrompt]; a name
// already registered is an error.
func (r *Registry) AddPrompt(p mcp.Prompt, h PromptHandler, opts ...ComponentOption) error {
	b := scratchBuilder()
	if err := WithPrompt(p, h, opts...).applyRuntime(b); err != nil {
		return err
	}
	r.mu.Lock()
	if _, dup := r.prompts[p.Name]; dup {
		r.mu.Unlock()
		return fmt.Errorf("dispatch: prompt %q registered twice", p.Name)
	}
	r.prompts[p.Name] = b.prompts[p.Name]
	r.publishLocked()
	r.mu.Unlock()
	r.changed(EventPromptsListChanged)
	return nil
}

// RemovePrompt removes the named prompt and reports whether it was there.
func (r *Registry) RemovePrompt(name string) bool {
	r.mu.Lock()
	if _, ok := r.prompts[name]; !ok {
		r.mu.Unlock()
		return false
	}
	delete(r.prompts, name)
	r.publishLocked()
	r.mu.Unlock()
	r.changed(EventPromptsListChanged)
	return true
}

// scratchBuilder is a builder that only collects components, so the
// registry checks and compiles them with the same code as New.
func scratchBuilder() *builder {
	return &builder{rt: &Runtime{}, tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{},
		resources: map[string]*resourceEntry{}, extensions: map[string]*Extension{}, extRoutes: map[string]*extensionRoute{}}
}

// publishLocked makes the current maps the version requests read. The
// maps are copied: the published version never changes.
func (r *Registry) publishLocked() {
	tools := make(map[string]*toolEntry, len(r.tools))
	for k, v := range r.tools {
		tools[k] = v
	}
	prompts := make(map[string]*promptEntry, len(r.prompts))
	for k, v := range r.prompts {
		prompts[k] = v
	}
	s := newSnapshot(tools, prompts, nil, nil)
	r.cur.Store(&registryLists{tools: s.tools, toolList: s.toolList, prompts: s.prompts, promptList: s.promptList})
}

// changed publishes a list change, after the new version is visible.
func (r *Registry) changed(kind EventKind) {
	if r.hub != nil {
		_, _ = r.hub.Publish(Event{Kind: kind})
	}
}

// bind moves a Runtime's own tools and prompts into the registry and
// returns the Runtime's catalog: the registry's current version with the
// Runtime's resources and templates. A name the registry already holds is
// an error, and then nothing is moved.
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
	if len(tools)+len(prompts) > 0 {
		for name, e := range tools {
			r.tools[name] = e
		}
		for name, e := range prompts {
			r.prompts[name] = e
		}
		r.publishLocked()
	}
	return &dynamicCatalog{reg: r, static: newSnapshot(nil, nil, resources, templates)}, nil
}

// dynamicCatalog is the catalog of a Runtime with a registry: the
// registry's tools and prompts with the Runtime's fixed resources and
// templates. It builds a snapshot once per registry version.
type dynamicCatalog struct {
	reg    *Registry
	static *snapshot
	cache  atomic.Pointer[dynamicSnapshot]
}

type dynamicSnapshot struct {
	from *registryLists
	snap *snapshot
}

func (c *dynamicCatalog) snapshot() *snapshot {
	lists := c.reg.cur.Load()
	if d := c.cache.Load(); d != nil && d.from == lists {
		return d.snap
	}
	s := *c.static
	s.tools, s.toolList = lists.tools, lists.toolList
	s.prompts, s.promptList = lists.prompts, lists.promptList
	c.cache.Store(&dynamicSnapshot{from: lists, snap: &s})
	return &s
}
