// This file names the components a Catalog replicates and holds the
// definitions (descriptions and handlers) each instance knows them by.

package backplane

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// ComponentKind is the kind of a component a [Catalog] replicates.
type ComponentKind uint8

// The kinds of component.
const (
	// KindTool is a tool, named by its name.
	KindTool ComponentKind = iota + 1
	// KindPrompt is a prompt, named by its name.
	KindPrompt
	// KindResource is a resource, named by its URI.
	KindResource
	// KindResourceTemplate is a resource template, named by its URI
	// template.
	KindResourceTemplate
)

var kindNames = map[ComponentKind]string{KindTool: "tool", KindPrompt: "prompt", KindResource: "resource", KindResourceTemplate: "template"}

// String returns "tool", "prompt", "resource" or "template".
func (k ComponentKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ComponentKind(%d)", uint8(k))
}

// Component names one component of a [Catalog]: its kind and its name (a
// tool's or prompt's name, a resource's URI, a template's URI template).
type Component struct {
	// Kind is the component's kind.
	Kind ComponentKind
	// Name is the tool's or prompt's name, the resource's URI or the
	// template's URI template.
	Name string
}

// Tool names the tool called name.
func Tool(name string) Component { return Component{KindTool, name} }

// Prompt names the prompt called name.
func Prompt(name string) Component { return Component{KindPrompt, name} }

// Resource names the resource with this URI.
func Resource(uri string) Component { return Component{KindResource, uri} }

// ResourceTemplate names the resource template with this URI template.
func ResourceTemplate(uriTemplate string) Component {
	return Component{KindResourceTemplate, uriTemplate}
}

// String returns the kind and the name, such as `tool "echo"`.
func (c Component) String() string { return fmt.Sprintf("%s %q", c.Kind, c.Name) }

// key is c's key in the catalog's bucket: the kind, a dot, and the name
// in unpadded URL-safe base64, since names may hold any character.
func (c Component) key() (string, error) {
	if _, ok := kindNames[c.Kind]; !ok {
		return "", fmt.Errorf("backplane: %v is not a component kind", c.Kind)
	}
	if c.Name == "" {
		return "", fmt.Errorf("backplane: a %s with no name", c.Kind)
	}
	return c.Kind.String() + "." + base64.RawURLEncoding.EncodeToString([]byte(c.Name)), nil
}

// parseKey is the inverse of key.
func parseKey(k string) (Component, error) {
	kind, enc, ok := strings.Cut(k, ".")
	if ok {
		for ck, s := range kindNames {
			if s != kind {
				continue
			}
			name, err := base64.RawURLEncoding.DecodeString(enc)
			if err == nil && len(name) > 0 {
				return Component{ck, string(name)}, nil
			}
		}
	}
	return Component{}, errors.New("backplane: not a catalog key")
}

// Definitions are the components a [Catalog] may make present, with their
// handlers: every instance defines the same ones (the same code), since
// handlers cannot travel. The zero value is empty and ready; defining a
// component again replaces its definition. Define everything before
// [NewCatalog]; the Catalog copies the definitions.
type Definitions struct {
	m map[Component]definition
}

// definition adds a component to a registry and removes it.
type definition struct {
	add    func(*hub.Registry) error
	remove func(*hub.Registry) bool
}

func (d *Definitions) set(c Component, def definition) {
	if d.m == nil {
		d.m = map[Component]definition{}
	}
	d.m[c] = def
}

// DefineTool defines the tool t under the rules of dispatch.WithTool.
func (d *Definitions) DefineTool(t mcp.Tool, h dispatch.ToolHandler, opts ...dispatch.ComponentOption) {
	d.set(Tool(t.Name), definition{
		add:    func(r *hub.Registry) error { return r.AddTool(t, h, opts...) },
		remove: func(r *hub.Registry) bool { return r.RemoveTool(t.Name) },
	})
}

// DefineTypedTool defines the typed tool t in d under the rules of
// dispatch.WithTypedTool.
func DefineTypedTool[In, Out any](d *Definitions, t mcp.Tool, h dispatch.TypedToolHandler[In, Out], opts ...dispatch.ComponentOption) {
	d.set(Tool(t.Name), definition{
		add:    func(r *hub.Registry) error { return hub.AddTypedTool(r, t, h, opts...) },
		remove: func(r *hub.Registry) bool { return r.RemoveTool(t.Name) },
	})
}

// DefinePrompt defines the prompt p under the rules of dispatch.WithPrompt.
func (d *Definitions) DefinePrompt(p mcp.Prompt, h dispatch.PromptHandler, opts ...dispatch.ComponentOption) {
	d.set(Prompt(p.Name), definition{
		add:    func(r *hub.Registry) error { return r.AddPrompt(p, h, opts...) },
		remove: func(r *hub.Registry) bool { return r.RemovePrompt(p.Name) },
	})
}

// DefineResource defines the resource res under the rules of
// dispatch.WithResource.
func (d *Definitions) DefineResource(res mcp.Resource, h dispatch.ResourceHandler) {
	d.set(Resource(res.URI), definition{
		add:    func(r *hub.Registry) error { return r.AddResource(res, h) },
		remove: func(r *hub.Registry) bool { return r.RemoveResource(res.URI) },
	})
}

// DefineResourceTemplate defines the resource template t under the rules
// of dispatch.WithResourceTemplate.
func (d *Definitions) DefineResourceTemplate(t mcp.ResourceTemplate, h dispatch.ResourceHandler, opts ...dispatch.ComponentOption) {
	d.set(ResourceTemplate(t.URITemplate), definition{
		add:    func(r *hub.Registry) error { return r.AddResourceTemplate(t, h, opts...) },
		remove: func(r *hub.Registry) bool { return r.RemoveResourceTemplate(t.URITemplate) },
	})
}
