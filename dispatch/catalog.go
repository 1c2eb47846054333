// The catalog interface operations read components through, and the static
// catalog New builds.

package dispatch

import (
	"slices"
	"strings"
)

// catalog is where operations find the server's components. The Runtime
// holds one behind this interface, so that a registry whose tool and
// prompt lists change at run time can replace the static one without
// touching any operation: each request takes one snapshot and sees a
// consistent catalog for its whole life.
type catalog interface {
	snapshot() *snapshot
}

// snapshot is an immutable view of every registered component.
type snapshot struct {
	tools        map[string]*toolEntry
	toolList     []*toolEntry // sorted by name
	prompts      map[string]*promptEntry
	promptList   []*promptEntry // sorted by name
	resources    map[string]*resourceEntry
	resourceList []*resourceEntry // sorted by URI
	// templates is in registration order, which is also match precedence.
	templates    []*templateEntry
	templateList []*templateEntry // sorted by URI template
	// mounts, when parts with an Authorizer are mounted, leads a mounted
	// component to its part; nil otherwise.
	mounts *mountIndex
}

// staticCatalog is the catalog of a Runtime whose components never change.
type staticCatalog struct{ s *snapshot }

func (c staticCatalog) snapshot() *snapshot { return c.s }

// newSnapshot indexes the components a builder collected.
func newSnapshot(tools map[string]*toolEntry, prompts map[string]*promptEntry, resources map[string]*resourceEntry, templates []*templateEntry) *snapshot {
	s := &snapshot{tools: tools, prompts: prompts, resources: resources, templates: templates}
	for _, e := range tools {
		s.toolList = append(s.toolList, e)
	}
	slices.SortFunc(s.toolList, func(a, b *toolEntry) int { return strings.Compare(a.tool.Name, b.tool.Name) })
	for _, e := range prompts {
		s.promptList = append(s.promptList, e)
	}
	slices.SortFunc(s.promptList, func(a, b *promptEntry) int { return strings.Compare(a.prompt.Name, b.prompt.Name) })
	for _, e := range resources {
		s.resourceList = append(s.resourceList, e)
	}
	slices.SortFunc(s.resourceList, func(a, b *resourceEntry) int { return strings.Compare(a.resource.URI, b.resource.URI) })
	s.templateList = slices.Clone(templates)
	slices.SortStableFunc(s.templateList, func(a, b *templateEntry) int {
		return strings.Compare(a.template.URITemplate, b.template.URITemplate)
	})
	return s
}

// matchTemplate returns the first template, in registration order, that
// matches uri.
func (s *snapshot) matchTemplate(uri string) (*templateEntry, map[string][]string) {
	for _, t := range s.templates {
		if vals, ok := t.parsed.Match(uri); ok {
			return t, vals
		}
	}
	return nil, nil
}

// canComplete reports whether any prompt argument or template variable
// has a completion handler.
func (s *snapshot) canComplete() bool {
	for _, p := range s.promptList {
		if len(p.complete) > 0 {
			return true
		}
	}
	for _, t := range s.templates {
		if len(t.complete) > 0 {
			return true
		}
	}
	return false
}
