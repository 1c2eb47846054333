package dispatch

// Registering resources and resource templates and their handlers.

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/snodo-go/snodo/internal/uritemplate"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// ResourceHandler reads a resource. For a template, req.Vars holds the
// variables the URI matched. Return [ErrResourceNotFound] (possibly
// wrapped) when the URI names nothing; the client then gets the revision's
// resource-not-found error carrying the URI. A result with no contents is
// treated the same way, because an empty contents array is ambiguous. A
// returned *jsonrpc.Error becomes that error, any other error -32603
// (logged, not sent), and a panic -32603 for this request only. Return an
// *[InputRequired] to ask the client for input first.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*mcp.ReadResourceResult, error)

// ReadResourceRequest is what a ResourceHandler receives.
type ReadResourceRequest struct {
	// URI is the URI the client asked for.
	URI string
	// Vars are the template variables of the matched URI; nil for a
	// resource with a fixed URI.
	Vars uritemplate.Values
	// Info describes the request.
	Info *RequestInfo
	// Input carries the client's answers when this is a retry after an
	// input_required result; nil otherwise.
	Input *Input
}

// ErrResourceNotFound is what a ResourceHandler returns for a URI that
// names nothing.
var ErrResourceNotFound = errors.New("dispatch: resource not found")

// resourceNotFoundData is the data of the error that answers a read of an
// unknown resource. Dialects recognise it to choose their revision's code
// (-32602 on 2026-07-28).
type resourceNotFoundData struct {
	// URI is the resource that was asked for.
	URI string `json:"uri"`
}

func resourceNotFound(uri string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: resourceNotFoundData{URI: uri}}
}

type resourceEntry struct {
	resource mcp.Resource
	handler  ResourceHandler
	policy   *componentPolicy
}

type templateEntry struct {
	template mcp.ResourceTemplate
	parsed   *uritemplate.Template
	handler  ResourceHandler
	complete map[string]CompletionHandler // by variable name
	policy   *componentPolicy
}

// WithResource registers a resource with a fixed, absolute URI. A URI
// registered twice, or one that a registered template also matches, fails
// New. opts are the resource's policies and middleware ([PolicyOption]).
func WithResource(r mcp.Resource, h ResourceHandler, opts ...ComponentOption) Option {
	return componentOption(func(b *builder) error {
		if err := checkAbsoluteURI(r.URI); err != nil {
			return fmt.Errorf("dispatch: resource %q: %w", r.URI, err)
		}
		if r.Name == "" {
			return fmt.Errorf("dispatch: resource %q has no name", r.URI)
		}
		if h == nil {
			return fmt.Errorf("dispatch: resource %q has no handler", r.URI)
		}
		if _, dup := b.resources[r.URI]; dup {
			return fmt.Errorf("dispatch: resource %q registered twice", r.URI)
		}
		cfg, err := componentOptions("resource", r.URI, opts)
		if err != nil {
			return err
		}
		if cfg.complete != nil {
			return fmt.Errorf("dispatch: resource %q: WithCompletion applies to prompts and resource templates only", r.URI)
		}
		b.resources[r.URI] = &resourceEntry{resource: r, handler: h, policy: &componentPolicy{own: cfg.policy}}
		return nil
	})
}

// WithResourceTemplate registers a resource template. The template must
// parse as RFC 6570 (levels 1 to 3 and the explode modifier; at most
// 1,024 bytes and 32 variables); [WithCompletion] may name only its
// variables. A [PolicyOption] applies to every URI the template serves
// together.
func WithResourceTemplate(t mcp.ResourceTemplate, h ResourceHandler, opts ...ComponentOption) Option {
	return componentOption(func(b *builder) error {
		parsed, err := uritemplate.Parse(t.URITemplate)
		if err != nil {
			return fmt.Errorf("dispatch: resource template %q: %w", t.URITemplate, err)
		}
		if t.Name == "" {
			return fmt.Errorf("dispatch: resource template %q has no name", t.URITemplate)
		}
		if h == nil {
			return fmt.Errorf("dispatch: resource template %q has no handler", t.URITemplate)
		}
		cfg, err := componentOptions("resource template", t.URITemplate, opts)
		if err != nil {
			return err
		}
		for name := range cfg.complete {
			if !parsed.HasVariable(name) {
				return fmt.Errorf("dispatch: resource template %q completes unknown variable %q", t.URITemplate, name)
			}
		}
		for _, e := range b.templates {
			if e.template.URITemplate == t.URITemplate {
				return fmt.Errorf("dispatch: resource template %q registered twice", t.URITemplate)
			}
		}
		b.templates = append(b.templates, &templateEntry{template: t, parsed: parsed, handler: h, complete: cfg.complete, policy: &componentPolicy{own: cfg.policy}})
		return nil
	})
}

// checkResourceOverlap refuses a fixed URI that a template also matches:
// which handler serves it would otherwise depend on lookup order.
func checkResourceOverlap(resources map[string]*resourceEntry, templates []*templateEntry) error {
	for uri := range resources {
		for _, t := range templates {
			if _, ok := t.parsed.Match(uri); ok {
				return fmt.Errorf("dispatch: resource %q is already matched by template %q", uri, t.template.URITemplate)
			}
		}
	}
	return nil
}

func checkAbsoluteURI(s string) error {
	if s == "" {
		return errors.New("empty URI")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a valid URI")
	}
	if u.Scheme == "" {
		return errors.New("not an absolute URI")
	}
	return nil
}
