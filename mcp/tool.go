// Tool and its annotations, as tools/list carries them.

package mcp

import "encoding/json"

// Tool describes a tool a server offers. InputSchema and OutputSchema are
// raw JSON Schemas, carried byte for byte.
type Tool struct {
	// Name identifies the tool: 1 to 64 characters of [A-Za-z0-9_./-].
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Description tells a model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, an object schema.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, is the JSON Schema of structuredContent.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are hints about the tool's behaviour.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the tool.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the tool's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour. A nil
// hint is left out, so the client applies the protocol's default.
type ToolAnnotations struct {
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool changes nothing (default false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: the tool may destroy or overwrite (default true).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: calling it twice with the same arguments does no
	// more than once (default false).
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint: the tool reaches beyond a closed domain, such as the
	// web (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}
