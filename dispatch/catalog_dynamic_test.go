// Tests of Components: built and checked as New checks, and changed only
// by returning a new version.

package dispatch_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

func TestComponents(t *testing.T) {
	if _, err := dispatch.NewComponents(dispatch.WithLogger(slog.Default())); err == nil || !strings.Contains(err.Error(), "component options only") {
		t.Fatalf("a non-component option: %v", err)
	}
	if _, err := dispatch.NewComponents(dispatch.WithTool(mcp.Tool{Name: "bad name!"}, okTool)); err == nil {
		t.Fatal("an invalid tool was accepted")
	}
	if _, err := dispatch.NewComponents(
		dispatch.WithResource(mcp.Resource{URI: "docs://a", Name: "a"}, okResource),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{name}", Name: "t"}, okResource)); err == nil {
		t.Fatal("a resource a template of the same set matches was accepted")
	}
	base, err := dispatch.NewComponents(
		dispatch.WithTool(mcp.Tool{Name: "t"}, okTool),
		dispatch.WithPrompt(mcp.Prompt{Name: "p"}, okPrompt),
		dispatch.WithResource(mcp.Resource{URI: "docs://a", Name: "a"}, okResource),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://{path}", Name: "f"}, okResource))
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]dispatch.Option{
		"tool":              dispatch.WithTool(mcp.Tool{Name: "t"}, okTool),
		"prompt":            dispatch.WithPrompt(mcp.Prompt{Name: "p"}, okPrompt),
		"resource":          dispatch.WithResource(mcp.Resource{URI: "docs://a", Name: "a2"}, okResource),
		"template":          dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "files://{path}", Name: "f2"}, okResource),
		"matched resource":  dispatch.WithResource(mcp.Resource{URI: "files://x", Name: "x"}, okResource),
		"matching template": dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{name}", Name: "d"}, okResource),
	} {
		add, err := dispatch.NewComponents(opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := base.With(add); err == nil {
			t.Errorf("%s: a collision was accepted", name)
		}
	}
	// The nil set is the empty one; With never changes its receiver.
	var empty *dispatch.Components
	all, err := empty.With(base)
	if err != nil {
		t.Fatal(err)
	}
	rt := mustNew(t, dispatch.WithCatalog(fixedCatalog{all}))
	if got := len(rt.Tools()) + len(rt.Prompts()) + len(rt.Resources()) + len(rt.ResourceTemplates()); got != 4 {
		t.Fatalf("the Runtime sees %d components, want 4", got)
	}
	for name, without := range map[string]func(*dispatch.Components) (*dispatch.Components, bool){
		"tool":   func(c *dispatch.Components) (*dispatch.Components, bool) { return c.Without(dispatch.KindTool, "t") },
		"prompt": func(c *dispatch.Components) (*dispatch.Components, bool) { return c.Without(dispatch.KindPrompt, "p") },
		"resource": func(c *dispatch.Components) (*dispatch.Components, bool) {
			return c.Without(dispatch.KindResource, "docs://a")
		},
		"template": func(c *dispatch.Components) (*dispatch.Components, bool) {
			return c.Without(dispatch.KindResourceTemplate, "files://{path}")
		},
	} {
		less, ok := without(all)
		if !ok {
			t.Fatalf("%s: not removed", name)
		}
		if _, ok := without(less); ok {
			t.Errorf("%s: removed twice", name)
		}
		if _, ok := without(all); !ok {
			t.Errorf("%s: removing changed the receiver", name)
		}
	}
	if _, ok := all.Without(0, "t"); ok {
		t.Error("the zero kind removed a component")
	}
}

// fixedCatalog is a Catalog whose version never changes.
type fixedCatalog struct{ c *dispatch.Components }

func (f fixedCatalog) Components() *dispatch.Components { return f.c }
func (f fixedCatalog) Adopt(own *dispatch.Components) error {
	_, err := f.c.With(own)
	return err
}
