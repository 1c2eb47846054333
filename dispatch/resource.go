package dispatch

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"

	"github.com/snodo-go/snodo/dispatch/uritemplate"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Resource describes a resource with a fixed URI, listed by
// resources/list.
type Resource struct {
	// URI is absolute and unique in the Runtime.
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources whose URIs follow an
// RFC 6570 template (see package uritemplate for the supported forms),
// listed by resources/templates/list.
type ResourceTemplate struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
	// Complete maps a template variable to the handler that completes
	// its values in completion/complete. It is not sent to clients.
	Complete map[string]CompletionHandler `json:"-"`
}

// ResourceHandler reads a resource. For a template, req.Vars holds the
// variables the URI matched. Return [ErrResourceNotFound] (possibly
// wrapped) when the URI names nothing; the client then gets the revision's
// resource-not-found error carrying the URI. A result with no contents is
// treated the same way, because an empty contents array is ambiguous. A
// returned *jsonrpc.Error becomes that error, any other error -32603
// (logged, not sent), and a panic -32603 for this request only. Return an
// *[InputRequired] to ask the client for input first.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

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

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []*ResourceContents
	Meta     map[string]any
}

// ErrResourceNotFound is what a ResourceHandler returns for a URI that
// names nothing.
var ErrResourceNotFound = errors.New("dispatch: resource not found")

// ResourceNotFoundData is the data of the error that answers a read of an
// unknown resource. Dialects recognise it to choose their revision's code
// (-32602 on 2026-07-28).
type ResourceNotFoundData struct {
	URI string `json:"uri"`
}

func resourceNotFound(uri string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: ResourceNotFoundData{URI: uri}}
}

// TextContents returns text contents for a resource.
func TextContents(uri, mimeType, text string) *ResourceContents {
	return &ResourceContents{URI: uri, MimeType: mimeType, Text: text}
}

// BlobContents returns binary contents, base64-encoded for the wire.
func BlobContents(uri, mimeType string, data []byte) *ResourceContents {
	return &ResourceContents{URI: uri, MimeType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// JSONContents returns v encoded as JSON text with MIME type
// application/json.
func JSONContents(uri string, v any) (*ResourceContents, error) {
	b, err := jsonrpc.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &ResourceContents{URI: uri, MimeType: "application/json", Text: string(b)}, nil
}

type resourceEntry struct {
	resource Resource
	handler  ResourceHandler
}

type templateEntry struct {
	template ResourceTemplate
	parsed   *uritemplate.Template
	handler  ResourceHandler
}

// WithResource registers a resource with a fixed, absolute URI. A URI
// registered twice, or one that a registered template also matches, fails
// New.
func WithResource(r Resource, h ResourceHandler) Option {
	return func(b *builder) error {
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
		b.resources[r.URI] = &resourceEntry{resource: r, handler: h}
		return nil
	}
}

// WithResourceTemplate registers a resource template. The template must
// parse (see package uritemplate); Complete may only name its variables.
func WithResourceTemplate(t ResourceTemplate, h ResourceHandler) Option {
	return func(b *builder) error {
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
		for name, c := range t.Complete {
			if !parsed.HasVariable(name) {
				return fmt.Errorf("dispatch: resource template %q completes unknown variable %q", t.URITemplate, name)
			}
			if c == nil {
				return fmt.Errorf("dispatch: resource template %q has a nil completion handler for %q", t.URITemplate, name)
			}
		}
		for _, e := range b.templates {
			if e.template.URITemplate == t.URITemplate {
				return fmt.Errorf("dispatch: resource template %q registered twice", t.URITemplate)
			}
		}
		b.templates = append(b.templates, &templateEntry{template: t, parsed: parsed, handler: h})
		return nil
	}
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
