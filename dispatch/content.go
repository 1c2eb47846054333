package dispatch

import "github.com/snodo-go/snodo/jsonrpc"

// Content is one block of a tool result or prompt message: *TextContent,
// *ImageContent, *AudioContent, *ResourceLink or *EmbeddedResource.
type Content interface {
	// ContentType returns the wire "type" of the block.
	ContentType() string
}

// Annotations are optional hints about a content block or resource.
type Annotations struct {
	// Audience lists "user" and/or "assistant".
	Audience []string `json:"audience,omitempty"`
	// Priority runs from 0 (least) to 1 (most important); nil leaves it out.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp.
	LastModified string `json:"lastModified,omitempty"`
}

// TextContent is plain text.
type TextContent struct {
	Text        string         `json:"text"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	Data        string         `json:"data"`
	MimeType    string         `json:"mimeType"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// AudioContent is base64-encoded audio.
type AudioContent struct {
	Data        string         `json:"data"`
	MimeType    string         `json:"mimeType"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceLink points to a resource the client may read.
type ResourceLink struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

// ResourceContents is the text or base64 blob of a resource. Exactly one of
// Text and Blob is sent: Blob when it is non-empty, Text otherwise.
type ResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     string         `json:"-"`
	Blob     string         `json:"-"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// ContentType implements Content.
func (*TextContent) ContentType() string { return "text" }

// ContentType implements Content.
func (*ImageContent) ContentType() string { return "image" }

// ContentType implements Content.
func (*AudioContent) ContentType() string { return "audio" }

// ContentType implements Content.
func (*ResourceLink) ContentType() string { return "resource_link" }

// ContentType implements Content.
func (*EmbeddedResource) ContentType() string { return "resource" }

// MarshalJSON adds the "type" member.
func (c *TextContent) MarshalJSON() ([]byte, error) {
	type plain TextContent
	return marshalTyped("text", (*plain)(c))
}

// MarshalJSON adds the "type" member.
func (c *ImageContent) MarshalJSON() ([]byte, error) {
	type plain ImageContent
	return marshalTyped("image", (*plain)(c))
}

// MarshalJSON adds the "type" member.
func (c *AudioContent) MarshalJSON() ([]byte, error) {
	type plain AudioContent
	return marshalTyped("audio", (*plain)(c))
}

// MarshalJSON adds the "type" member.
func (c *ResourceLink) MarshalJSON() ([]byte, error) {
	type plain ResourceLink
	return marshalTyped("resource_link", (*plain)(c))
}

// MarshalJSON adds the "type" member.
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) {
	type plain EmbeddedResource
	return marshalTyped("resource", (*plain)(c))
}

// MarshalJSON writes text or blob, whichever the contents carry.
func (r *ResourceContents) MarshalJSON() ([]byte, error) {
	type plain ResourceContents
	if r.Blob != "" {
		return jsonrpc.API.Marshal(struct {
			*plain
			Blob string `json:"blob"`
		}{(*plain)(r), r.Blob})
	}
	return jsonrpc.API.Marshal(struct {
		*plain
		Text string `json:"text"`
	}{(*plain)(r), r.Text})
}

// marshalTyped encodes v (a struct without a type field) and puts
// "type":typ first.
func marshalTyped(typ string, v any) ([]byte, error) {
	b, err := jsonrpc.API.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(typ)+12)
	out = append(out, `{"type":`...)
	out = jsonrpc.AppendString(out, typ)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// Text returns a text content block.
func Text(s string) *TextContent { return &TextContent{Text: s} }
