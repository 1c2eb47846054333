// The results of the server's methods, and the envelope every result
// shares.

package mcp

import (
	"encoding/json"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// Result is what every result carries besides its body: on 2026-07-28
// its resultType and, for cacheable results, the cache hints; on every
// revision its _meta. Every result type here embeds it. A server's
// handlers leave ResultType and the cache hints zero: the server sets
// them for the revision it answers under.
type Result struct {
	// ResultType is "complete" or "input_required" (2026-07-28); empty
	// on the earlier revisions, where every result is complete.
	ResultType string `json:"resultType,omitempty"`
	// TTLMs is how long, in milliseconds, the result may be reused
	// (cacheable 2026-07-28 results; 0 means it is stale at once).
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// CacheScope says who may reuse it (cacheable 2026-07-28 results).
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	// Meta is the result's _meta object. On 2026-07-28 the server adds
	// its identity under [MetaServerInfo].
	Meta map[string]any `json:"_meta,omitempty"`
}

// Result types of 2026-07-28.
const (
	// ResultComplete marks a final result.
	ResultComplete = "complete"
	// ResultInputRequired marks an [InputRequiredResult].
	ResultInputRequired = "input_required"
)

// CacheScope says who may reuse a cached result (2026-07-28).
type CacheScope string

const (
	// CachePrivate results may be reused only within the same
	// authorization context.
	CachePrivate CacheScope = "private"
	// CachePublic results hold no user-specific data and may be shared.
	CachePublic CacheScope = "public"
)

// DiscoverResult is the result of server/discover (2026-07-28).
type DiscoverResult struct {
	Result
	// SupportedVersions are the revisions the server serves.
	SupportedVersions []string `json:"supportedVersions"`
	// Capabilities are the server's capabilities.
	Capabilities ServerCapabilities `json:"capabilities"`
	// Instructions tell a model how to use the server.
	Instructions string `json:"instructions,omitempty"`
}

// InitializeResult is the result of initialize (2025-11-25, 2025-06-18).
type InitializeResult struct {
	Result
	// ProtocolVersion is the revision the server chose.
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities are the server's capabilities on this connection.
	Capabilities ServerCapabilities `json:"capabilities"`
	// ServerInfo is the server's identity.
	ServerInfo Implementation `json:"serverInfo"`
	// Instructions tell a model how to use the server.
	Instructions string `json:"instructions,omitempty"`
}

// ListToolsResult is one page of tools/list.
type ListToolsResult struct {
	Result
	// Tools are the page's tools.
	Tools []Tool `json:"tools"`
	// NextCursor is the cursor of the next page; nil on the last.
	NextCursor *string `json:"nextCursor,omitempty"`
}

// ListPromptsResult is one page of prompts/list.
type ListPromptsResult struct {
	Result
	// Prompts are the page's prompts.
	Prompts []Prompt `json:"prompts"`
	// NextCursor is the cursor of the next page; nil on the last.
	NextCursor *string `json:"nextCursor,omitempty"`
}

// ListResourcesResult is one page of resources/list.
type ListResourcesResult struct {
	Result
	// Resources are the page's resources.
	Resources []Resource `json:"resources"`
	// NextCursor is the cursor of the next page; nil on the last.
	NextCursor *string `json:"nextCursor,omitempty"`
}

// ListResourceTemplatesResult is one page of resources/templates/list.
type ListResourceTemplatesResult struct {
	Result
	// ResourceTemplates are the page's templates.
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	// NextCursor is the cursor of the next page; nil on the last.
	NextCursor *string `json:"nextCursor,omitempty"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Result
	// Contents are the resource's contents (several for a resource
	// with parts, such as a directory).
	Contents []*ResourceContents `json:"contents"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Result
	// Description says what the rendered prompt is for.
	Description string `json:"description,omitempty"`
	// Messages are the rendered prompt.
	Messages []PromptMessage `json:"messages"`
}

// CallToolResult is the result of tools/call. IsError marks a failure the
// tool reports to the model; it is not a protocol error.
type CallToolResult struct {
	Result
	// Content is what the model reads.
	Content []Content `json:"content"`
	// StructuredContent is the result as a JSON value, which the tool's
	// output schema describes. Decoded results hold it as a
	// json.RawMessage.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError marks a result that reports the tool's own failure.
	IsError bool `json:"isError,omitempty"`
}

// UnmarshalJSON decodes the content blocks by their type and keeps
// structuredContent as raw JSON.
func (r *CallToolResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Result
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	content, err := decodeContentList(w.Content)
	if err != nil {
		return err
	}
	*r = CallToolResult{Result: w.Result, Content: content, IsError: w.IsError}
	if len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null" {
		r.StructuredContent = w.StructuredContent
	}
	return nil
}

// TextResult returns a tool result with one text block.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{Text(text)}}
}

// ErrorResult returns a tool result with isError set and one text block.
func ErrorResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{Text(text)}, IsError: true}
}

// Completion reference types.
const (
	// RefPrompt refers to a prompt by name.
	RefPrompt = "ref/prompt"
	// RefResource refers to a resource template by its URI template.
	RefResource = "ref/resource"
)

// Reference names what completion/complete completes: a prompt (Type
// [RefPrompt], Name) or a resource template (Type [RefResource], URI).
type Reference struct {
	// Type is RefPrompt or RefResource.
	Type string `json:"type"`
	// Name is the prompt's name.
	Name string `json:"name,omitempty"`
	// URI is the template's URI template.
	URI string `json:"uri,omitempty"`
}

// Completion is a list of suggestions.
type Completion struct {
	// Values are the suggestions, at most 100.
	Values []string `json:"values"`
	// Total is the number of suggestions available, when known (0 leaves
	// it out).
	Total int `json:"total,omitempty"`
	// HasMore: there are more suggestions than Values holds.
	HasMore bool `json:"hasMore,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Result
	// Completion holds the suggestions.
	Completion Completion `json:"completion"`
}
