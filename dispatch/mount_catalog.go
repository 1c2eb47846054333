// The catalog of a Runtime with mounts: its own components merged with
// its parts', rebuilt when any of them changes.

package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/internal/uritemplate"
)

// mountCatalog merges the Runtime's own catalog with its parts'. A
// merged snapshot is kept for the versions it was built from; a request
// that finds any of them changed builds the next one.
type mountCatalog struct {
	own    catalog
	parts  []*mountPart
	logger *slog.Logger

	mu    sync.Mutex // one rebuild at a time
	cache atomic.Pointer[mountVersion]
}

// mountVersion is a merged snapshot and the snapshots it was built from
// (the Runtime's own first, then each part's in mount order).
type mountVersion struct {
	from []*snapshot
	snap *snapshot
}

func (c *mountCatalog) sources() []*snapshot {
	from := make([]*snapshot, 0, 1+len(c.parts))
	from = append(from, c.own.snapshot())
	for _, p := range c.parts {
		from = append(from, p.rt.catalog.snapshot())
	}
	return from
}

func (c *mountCatalog) snapshot() *snapshot {
	if v := c.cache.Load(); v != nil && c.current(v) {
		return v.snap
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.cache.Load(); v != nil && c.current(v) {
		return v.snap
	}
	snap, errs := c.merge()
	for _, err := range errs {
		c.logger.Warn("snodo: a mounted component is left out", "error", err)
	}
	return snap
}

// current reports whether v was built from the snapshots in use now.
func (c *mountCatalog) current(v *mountVersion) bool {
	if v.from[0] != c.own.snapshot() {
		return false
	}
	for i, p := range c.parts {
		if v.from[i+1] != p.rt.catalog.snapshot() {
			return false
		}
	}
	return true
}

// merge builds the merged snapshot from the current versions and caches
// it. Every collision is reported; the component left out is always the
// mounted one, so the Runtime's own components and the first part's win.
func (c *mountCatalog) merge() (*snapshot, []error) {
	from := c.sources()
	own := from[0]
	tools := cloneMap(own.tools)
	prompts := cloneMap(own.prompts)
	resources := cloneMap(own.resources)
	templates := slices.Clone(own.templates)
	index := &mountIndex{refs: map[mountKey]mountRef{}}
	var errs []error
	for i, p := range c.parts {
		ps := from[i+1]
		for _, e := range ps.toolList {
			name := mountedName(p.prefix, e.tool.Name)
			switch {
			case !toolNameRE.MatchString(name):
				errs = append(errs, fmt.Errorf("dispatch: mount %q: tool name %q is not a valid tool name", p.prefix, name))
			case tools[name] != nil:
				errs = append(errs, fmt.Errorf("dispatch: mount %q: tool %q is already served", p.prefix, name))
			default:
				tools[name] = mountTool(p, e, name)
				index.add(p, KindTool, name, e.tool.Name)
			}
		}
		for _, e := range ps.promptList {
			name := mountedName(p.prefix, e.prompt.Name)
			if prompts[name] != nil {
				errs = append(errs, fmt.Errorf("dispatch: mount %q: prompt %q is already served", p.prefix, name))
				continue
			}
			prompts[name] = mountPrompt(p, e, name)
			index.add(p, KindPrompt, name, e.prompt.Name)
		}
		for _, e := range ps.resourceList {
			uri := mountedURI(p.prefix, e.resource.URI)
			if t, _ := matchTemplates(templates, uri); resources[uri] != nil || t != nil {
				errs = append(errs, fmt.Errorf("dispatch: mount %q: resource %q is already served", p.prefix, uri))
				continue
			}
			resources[uri] = mountResource(p, e, uri)
			index.add(p, KindResource, uri, e.resource.URI)
		}
		for _, e := range ps.templates {
			tmpl := mountedURI(p.prefix, e.template.URITemplate)
			parsed, err := uritemplate.Parse(tmpl)
			if err != nil {
				errs = append(errs, fmt.Errorf("dispatch: mount %q: resource template %q: %w", p.prefix, tmpl, err))
				continue
			}
			te := mountTemplate(p, e, tmpl, parsed)
			if err := checkResourceOverlap(resources, []*templateEntry{te}); err != nil {
				errs = append(errs, fmt.Errorf("dispatch: mount %q: %w", p.prefix, err))
				continue
			}
			if slices.ContainsFunc(templates, func(have *templateEntry) bool { return have.template.URITemplate == tmpl }) {
				errs = append(errs, fmt.Errorf("dispatch: mount %q: resource template %q is already served", p.prefix, tmpl))
				continue
			}
			templates = append(templates, te)
			index.add(p, KindResourceTemplate, tmpl, e.template.URITemplate)
		}
	}
	snap := newSnapshot(tools, prompts, resources, templates)
	if index.gated {
		snap.mounts = index
	}
	c.cache.Store(&mountVersion{from: from, snap: snap})
	return snap, errs
}

// matchTemplates is snapshot.matchTemplate over a list being built.
func matchTemplates(templates []*templateEntry, uri string) (*templateEntry, uritemplate.Values) {
	return (&snapshot{templates: templates}).matchTemplate(uri)
}

// mountIndex maps the mounted components whose part has an Authorizer to
// their part and own name, so that lists also leave out what the part's
// Authorizer hides.
type mountIndex struct {
	refs  map[mountKey]mountRef
	gated bool // some part has an Authorizer
}

type mountKey struct {
	kind ComponentKind
	name string
}

type mountRef struct {
	part  *mountPart
	inner string
}

func (x *mountIndex) add(p *mountPart, kind ComponentKind, name, inner string) {
	if p.rt.authorizer == nil {
		return
	}
	x.gated = true
	x.refs[mountKey{kind, name}] = mountRef{part: p, inner: inner}
}

// visible asks the part's Authorizer, if any, about a mounted component.
func (x *mountIndex) visible(ctx context.Context, c *Call, kind ComponentKind, name string) bool {
	ref, ok := x.refs[mountKey{kind, name}]
	return !ok || ref.part.rt.visible(ctx, c, kind, ref.inner)
}
