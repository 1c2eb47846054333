// Content blocks: what tool results, prompt messages and sampling
// messages carry, with their JSON encoding and decoding.

package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// Content is one content block: *TextContent, *ImageContent,
// *AudioContent, *ResourceLink or *EmbeddedResource. The set is closed;
// tell the blocks apart with a type switch.
type Content interface {
	contentType() string
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
	// Text is the text.
	Text string `json:"text"`
	// Annotations are hints about the block.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	// Data is the image, base64-encoded.
	Data string `json:"data"`
	// MIMEType is the image's media type, such as "image/png".
	MIMEType string `json:"mimeType"`
	// Annotations are hints about the block.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// AudioContent is base64-encoded audio.
type AudioContent struct {
	// Data is the audio, base64-encoded.
	Data string `json:"data"`
	// MIMEType is the audio's media type, such as "audio/wav".
	MIMEType string `json:"mimeType"`
	// Annotations are hints about the block.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ResourceLink points to a resource the client may read.
type ResourceLink struct {
	// URI is the resource's URI.
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
	// Icons are images a client may show for the resource.
	Icons []Icon `json:"icons,omitempty"`
	// Annotations are hints about the block.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	// Resource is the contents.
	Resource *ResourceContents `json:"resource"`
	// Annotations are hints about the block.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*TextContent) contentType() string      { return "text" }
func (*ImageContent) contentType() string     { return "image" }
func (*AudioContent) contentType() string     { return "audio" }
func (*ResourceLink) contentType() string     { return "resource_link" }
func (*EmbeddedResource) contentType() string { return "resource" }

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

// marshalTyped encodes v (a struct without a type field) and puts
// "type":typ first.
func marshalTyped(typ string, v any) ([]byte, error) {
	b, err := jsonwire.API.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(typ)+12)
	out = append(out, `{"type":`...)
	out = jsonwire.AppendString(out, typ)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// Text returns a text content block.
func Text(s string) *TextContent { return &TextContent{Text: s} }

// decodeContent decodes one content block by its "type".
func decodeContent(raw []byte) (Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := jsonwire.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	var c Content
	switch head.Type {
	case "text":
		c = &TextContent{}
	case "image":
		c = &ImageContent{}
	case "audio":
		c = &AudioContent{}
	case "resource_link":
		c = &ResourceLink{}
	case "resource":
		c = &EmbeddedResource{}
	default:
		return nil, fmt.Errorf("mcp: unknown content type %q", head.Type)
	}
	if err := jsonwire.Unmarshal(raw, c); err != nil {
		return nil, fmt.Errorf("mcp: %s content: %w", head.Type, err)
	}
	return c, nil
}

// decodeContentList decodes a JSON array of content blocks; null is nil.
func decodeContentList(raw []json.RawMessage) ([]Content, error) {
	if raw == nil {
		return nil, nil
	}
	out := make([]Content, len(raw))
	for i, r := range raw {
		c, err := decodeContent(r)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// decodeOneOrMany decodes a content block or an array of them (sampling
// messages and results carry either).
func decodeOneOrMany(raw json.RawMessage) ([]Content, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '[' {
		c, err := decodeContent(raw)
		if err != nil {
			return nil, err
		}
		return []Content{c}, nil
	}
	var list []json.RawMessage
	if err := jsonwire.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	return decodeContentList(list)
}

// oneOrMany is the encoding of decodeOneOrMany's input: a single block as
// itself, any other number as an array.
func oneOrMany(c []Content) any {
	if len(c) == 1 {
		return c[0]
	}
	if c == nil {
		return []Content{}
	}
	return c
}

// TextOf returns the text of the text blocks in c, concatenated; other
// blocks are skipped.
func TextOf(c []Content) string {
	var s string
	for _, b := range c {
		if t, ok := b.(*TextContent); ok && t != nil {
			s += t.Text
		}
	}
	return s
}
