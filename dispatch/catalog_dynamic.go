// The Catalog interface a component set that changes at run time is
// given through (WithCatalog), and Components, the immutable checked
// versions of such a set.

package dispatch

import (
	"errors"
	"fmt"
	"slices"
)

// Catalog holds tools, prompts, resources and resource templates that may
// change while the server runs; [hub.Registry] is one. The Runtime stays
// immutable: each request reads the catalog's current [Components] once
// and sees that version for its whole life, so a change never reaches a
// request half-way. Its methods are called from any goroutine.
//
// [hub.Registry]: https://pkg.go.dev/github.com/snodo-go/snodo/hub#Registry
type Catalog interface {
	// Components returns the current version. Every request calls it,
	// so it must be cheap (an atomic load).
	Components() *Components
	// Adopt takes in the components given to New with WithTool,
	// WithTypedTool, WithPrompt, WithResource and WithResourceTemplate
	// (own may be empty) when New builds a Runtime with this catalog. An
	// error fails New; the catalog must then be unchanged.
	Adopt(own *Components) error
}

// WithCatalog makes the Runtime read its tools, prompts, resources and
// resource templates from c; the components given with WithTool and the
// like move into it (Catalog.Adopt). The Runtime then advertises the
// tools, prompts, resources and completions capabilities even while a
// list is empty, since it may fill up at run time (with listChanged when
// [WithSubscriptions] is also given). completion/complete serves what is
// in the catalog when the request arrives: an argument or variable with
// no completion handler gets no values, a component removed is unknown.
func WithCatalog(c Catalog) Option {
	return optionFunc(func(b *builder) error {
		if c == nil {
			return errors.New("dispatch: nil catalog")
		}
		b.catalog = c
		return nil
	})
}

// Components is one immutable version of a component set, checked with
// the same code as New: names and URIs are unique, and no resource URI is
// matched by a template. The nil *Components is the empty set.
type Components struct{ s *snapshot }

// emptySnapshot is the version of the nil *Components.
var emptySnapshot = newSnapshot(nil, nil, nil, nil)

func (c *Components) snap() *snapshot {
	if c == nil || c.s == nil {
		return emptySnapshot
	}
	return c.s
}

// componentOption is an Option that adds one component: the kind
// NewComponents takes.
type componentOption func(*builder) error

func (f componentOption) applyRuntime(b *builder) error { return f(b) }

// NewComponents builds a set from component options (WithTool,
// WithTypedTool, WithPrompt, WithResource, WithResourceTemplate), checked
// exactly as New checks them; any other option is an error.
func NewComponents(opts ...Option) (*Components, error) {
	b := &builder{rt: &Runtime{}, tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{},
		resources: map[string]*resourceEntry{}, extensions: map[string]*Extension{}, extRoutes: map[string]*extensionRoute{}}
	for _, opt := range opts {
		c, ok := opt.(componentOption)
		if !ok {
			return nil, fmt.Errorf("dispatch: NewComponents takes component options only, not %T", opt)
		}
		if err := c(b); err != nil {
			return nil, err
		}
	}
	if err := checkResourceOverlap(b.resources, b.templates); err != nil {
		return nil, err
	}
	return &Components{newSnapshot(b.tools, b.prompts, b.resources, b.templates)}, nil
}

// len returns the number of components in the set.
func (c *Components) len() int {
	s := c.snap()
	return len(s.tools) + len(s.prompts) + len(s.resources) + len(s.templates)
}

// With returns the union of c and add. A name, URI or URI template both
// hold, or a resource URI a template of the other matches, is an error.
// Templates of add take match precedence after those of c.
func (c *Components) With(add *Components) (*Components, error) {
	a, o := c.snap(), add.snap()
	for name := range o.tools {
		if _, dup := a.tools[name]; dup {
			return nil, fmt.Errorf("dispatch: tool %q is already registered", name)
		}
	}
	for name := range o.prompts {
		if _, dup := a.prompts[name]; dup {
			return nil, fmt.Errorf("dispatch: prompt %q is already registered", name)
		}
	}
	for uri := range o.resources {
		if _, dup := a.resources[uri]; dup {
			return nil, fmt.Errorf("dispatch: resource %q is already registered", uri)
		}
	}
	for _, t := range o.templates {
		if a.template(t.template.URITemplate) >= 0 {
			return nil, fmt.Errorf("dispatch: resource template %q is already registered", t.template.URITemplate)
		}
	}
	if err := checkResourceOverlap(o.resources, a.templates); err != nil {
		return nil, err
	}
	if err := checkResourceOverlap(a.resources, o.templates); err != nil {
		return nil, err
	}
	if add.len() == 0 {
		return &Components{a}, nil
	}
	tools, prompts, resources := cloneMap(a.tools), cloneMap(a.prompts), cloneMap(a.resources)
	for k, v := range o.tools {
		tools[k] = v
	}
	for k, v := range o.prompts {
		prompts[k] = v
	}
	for k, v := range o.resources {
		resources[k] = v
	}
	return &Components{newSnapshot(tools, prompts, resources, append(slices.Clone(a.templates), o.templates...))}, nil
}

// Without returns c without the component of this kind named name (a
// tool's or prompt's name, a resource's URI, a template's URI template),
// and whether c had it. An unknown kind removes nothing.
func (c *Components) Without(kind ComponentKind, name string) (*Components, bool) {
	s := c.snap()
	switch kind {
	case KindTool:
		if _, ok := s.tools[name]; ok {
			m := cloneMap(s.tools)
			delete(m, name)
			return &Components{newSnapshot(m, s.prompts, s.resources, s.templates)}, true
		}
	case KindPrompt:
		if _, ok := s.prompts[name]; ok {
			m := cloneMap(s.prompts)
			delete(m, name)
			return &Components{newSnapshot(s.tools, m, s.resources, s.templates)}, true
		}
	case KindResource:
		if _, ok := s.resources[name]; ok {
			m := cloneMap(s.resources)
			delete(m, name)
			return &Components{newSnapshot(s.tools, s.prompts, m, s.templates)}, true
		}
	case KindResourceTemplate:
		if i := s.template(name); i >= 0 {
			return &Components{newSnapshot(s.tools, s.prompts, s.resources, slices.Delete(slices.Clone(s.templates), i, i+1))}, true
		}
	}
	return c, false
}

// template returns the index of the template with this URI template, or
// -1.
func (s *snapshot) template(uriTemplate string) int {
	return slices.IndexFunc(s.templates, func(e *templateEntry) bool { return e.template.URITemplate == uriTemplate })
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// dynamicCatalog is the catalog of a Runtime given WithCatalog: the
// Catalog's current version.
type dynamicCatalog struct{ c Catalog }

func (d dynamicCatalog) snapshot() *snapshot { return d.c.Components().snap() }
