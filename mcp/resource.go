// Resources, resource templates and resource contents.

package mcp

import (
	"encoding/base64"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// Resource describes a resource with a fixed URI, listed by
// resources/list.
type Resource struct {
	// URI is absolute and identifies the resource.
	URI string `json:"uri"`
	// Name identifies the resource programmatically.
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Description says what the resource holds.
	Description string `json:"description,omitempty"`
	// MIMEType is the resource's media type, when known.
	MIMEType string `json:"mimeType,omitempty"`
	// Size is the resource's size in bytes, when known.
	Size *int64 `json:"size,omitempty"`
	// Annotations are hints about the resource.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the resource.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the resource's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources whose URIs follow an
// RFC 6570 URI template, listed by resources/templates/list.
type ResourceTemplate struct {
	// URITemplate is the RFC 6570 template, such as "file:///{path}".
	URITemplate string `json:"uriTemplate"`
	// Name identifies the template programmatically.
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Description says what the resources hold.
	Description string `json:"description,omitempty"`
	// MIMEType is the resources' media type, when they share one.
	MIMEType string `json:"mimeType,omitempty"`
	// Annotations are hints about the resources.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the template.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the template's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ResourceContents is the text or base64 blob of a resource. Exactly one
// of Text and Blob is sent: Blob when it is not empty, Text otherwise.
type ResourceContents struct {
	// URI is the resource's URI.
	URI string `json:"uri"`
	// MIMEType is the contents' media type, when known.
	MIMEType string `json:"mimeType,omitempty"`
	// Text is the contents of a text resource.
	Text string `json:"-"`
	// Blob is the contents of a binary resource, base64-encoded.
	Blob string `json:"-"`
	// Meta is the contents' _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes text or blob, whichever the contents carry.
func (r *ResourceContents) MarshalJSON() ([]byte, error) {
	type plain ResourceContents
	if r.Blob != "" {
		return jsonwire.API.Marshal(struct {
			*plain
			Blob string `json:"blob"`
		}{(*plain)(r), r.Blob})
	}
	return jsonwire.API.Marshal(struct {
		*plain
		Text string `json:"text"`
	}{(*plain)(r), r.Text})
}

// UnmarshalJSON reads text or blob, whichever the contents carry.
func (r *ResourceContents) UnmarshalJSON(b []byte) error {
	type plain ResourceContents
	var w struct {
		*plain
		Text string `json:"text"`
		Blob string `json:"blob"`
	}
	w.plain = (*plain)(r)
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Text, r.Blob = w.Text, w.Blob
	return nil
}

// TextContents returns text contents for a resource.
func TextContents(uri, mimeType, text string) *ResourceContents {
	return &ResourceContents{URI: uri, MIMEType: mimeType, Text: text}
}

// BlobContents returns binary contents, base64-encoded for the wire.
func BlobContents(uri, mimeType string, data []byte) *ResourceContents {
	return &ResourceContents{URI: uri, MIMEType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// JSONContents returns v encoded as JSON text with the media type
// application/json.
func JSONContents(uri string, v any) (*ResourceContents, error) {
	b, err := jsonwire.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &ResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}, nil
}
