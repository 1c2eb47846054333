// Mounting: one Runtime serving the components of others under prefixes.

package dispatch

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/snodo-go/snodo/mcp"
)

// mountSeparator joins a part's prefix to the names of its tools and
// prompts: tool "search" of the part mounted as "github" is served as
// "github_search".
const mountSeparator = "_"

// mountSchemeSeparator joins a part's prefix to its resource URIs and URI
// templates: "docs://guide" of the part mounted as "github" is served as
// "github+docs://guide", and "docs://{path}" as "github+docs://{path}".
// The result is an absolute URI whose scheme is the prefix, "+" and the
// part's own scheme (RFC 3986 allows "+" in a scheme); a read of it goes
// back to the part with the prefix and "+" removed.
const mountSchemeSeparator = "+"

// mountPrefixRE is what a prefix may be: it starts a URI scheme, and
// holds neither separator, so a mounted name or URI names its part
// without ambiguity.
var mountPrefixRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.-]{0,31}$`)

// mountedName is the name a part's tool or prompt is served under.
func mountedName(prefix, name string) string { return prefix + mountSeparator + name }

// mountedURI is the URI (or URI template) a part's resource (or template)
// is served under.
func mountedURI(prefix, uri string) string { return prefix + mountSchemeSeparator + uri }

// UnmountURI splits a mounted URI into its prefix and the part's own URI;
// ok is false when uri is not of the mounted form.
func UnmountURI(uri string) (prefix, inner string, ok bool) {
	prefix, inner, ok = strings.Cut(uri, mountSchemeSeparator)
	if !ok || !mountPrefixRE.MatchString(prefix) {
		return "", "", false
	}
	return prefix, inner, true
}

// mountPart is one Runtime mounted in another.
type mountPart struct {
	prefix string
	rt     *Runtime
}

// WithMount serves the tools, prompts, resources, resource templates and
// completions of part under prefix: names become prefix + "_" + name
// (tool "search" of the part mounted as "github" is served as
// "github_search") and URIs prefix + "+" + URI ([mountedURI]). The prefix
// is 1 to 32 characters of [A-Za-z0-9.-] starting with a letter, and
// distinct among the mounts of one Runtime.
//
// New fails when a mounted name or URI collides with the Runtime's own
// components (or a mounted tool name passes 64 characters, or a template
// matches a resource of another part). A part whose lists change at run
// time (a [Catalog]) is followed: each request sees the parts' current
// lists, and a later collision is resolved for the Runtime's own
// component (the mounted one is left out and the conflict logged). When
// the Runtime's subscription source can publish (a method
// Publish(Event) (PublishResult, error), as a hub's) and the part's
// source or catalog can be followed (a method Tap(func(Event)) func(), as
// a hub's and a hub registry's), the part's list changes and resource
// updates (under the mounted URI) are published on the Runtime's source.
//
// Calls run the part's handlers in the Runtime's request: the Runtime's
// Authorizer is asked first about the mounted name, then the part's about
// its own name; the Runtime's limits, logging, progress, multi
// round-trip input and shaping apply. Resource contents a part returns
// from a read carry mounted URIs, and so do the resource links and
// embedded resources of its tool and prompt results that name what the
// part serves. The part's own extensions (a tools/call hook) and
// subscription source do not take part.
func WithMount(prefix string, part *Runtime) Option {
	return optionFunc(func(b *builder) error {
		if part == nil {
			return fmt.Errorf("dispatch: mount %q: nil Runtime", prefix)
		}
		if !mountPrefixRE.MatchString(prefix) {
			return fmt.Errorf("dispatch: mount prefix %q must be 1 to 32 characters of [A-Za-z0-9.-] starting with a letter", prefix)
		}
		for _, m := range b.mounts {
			if m.prefix == prefix {
				return fmt.Errorf("dispatch: mount prefix %q used twice", prefix)
			}
		}
		b.mounts = append(b.mounts, &mountPart{prefix: prefix, rt: part})
		return nil
	})
}

// finishMounts completes New for mounts: the catalog becomes the merge of
// the Runtime's own and its parts', a collision fails, the capabilities
// of the parts are offered, and list changes are relayed.
func (b *builder) finishMounts() error {
	if len(b.mounts) == 0 {
		return nil
	}
	rt := b.rt
	mc := &mountCatalog{own: rt.catalog, parts: b.mounts, logger: rt.logger}
	if _, errs := mc.merge(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	rt.catalog = mc
	for _, m := range b.mounts {
		pc := m.rt.capabilities
		if pc.Tools != nil && rt.capabilities.Tools == nil {
			rt.capabilities.Tools = &mcp.ListChangedCapability{ListChanged: rt.source != nil}
		}
		if pc.Prompts != nil && rt.capabilities.Prompts == nil {
			rt.capabilities.Prompts = &mcp.ListChangedCapability{ListChanged: rt.source != nil}
		}
		if pc.Resources != nil && rt.capabilities.Resources == nil {
			rt.capabilities.Resources = &mcp.ResourcesCapability{ListChanged: rt.source != nil, Subscribe: rt.source != nil}
		}
		if pc.Completions != nil {
			rt.capabilities.Completions = &struct{}{}
		}
	}
	if out, ok := rt.source.(publisher); ok {
		for _, m := range b.mounts {
			relayChanges(m, out)
		}
	}
	return nil
}
