package client

import (
	"encoding/json"

	"github.com/snodo-go/snodo/mcp"
)

// stateless reports whether a revision has no initialize handshake.
func stateless(version string) bool { return version >= mcp.Version20260728 }

// Implementation describes an MCP implementation: the client itself, or
// the server as it reports itself (unverified).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a client may show for a server, tool, prompt or
// resource.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// ServerCapabilities is what the server advertises. A nil field means the
// capability is absent.
type ServerCapabilities struct {
	Tools        *ListChanged               `json:"tools,omitempty"`
	Resources    *ResourcesCapability       `json:"resources,omitempty"`
	Prompts      *ListChanged               `json:"prompts,omitempty"`
	Completions  *struct{}                  `json:"completions,omitempty"`
	Logging      *struct{}                  `json:"logging,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ListChanged advertises a kind of component and whether the server
// announces changes to its list.
type ListChanged struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability advertises resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerInfo is what the client learned about the server when it
// connected.
type ServerInfo struct {
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string
	// SupportedVersions are the revisions the server named
	// (server/discover), or the negotiated one (initialize).
	SupportedVersions []string
	// Implementation is the server's self-description, when it sent one.
	Implementation Implementation
	Capabilities   ServerCapabilities
	Instructions   string
}

// DiscoverResult is the result of server/discover.
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	CacheHints
	Meta Meta `json:"_meta,omitempty"`
}

// CacheHints are the caching fields of cacheable 2026-07-28 results.
type CacheHints struct {
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// Meta is a result's _meta object, undecoded.
type Meta map[string]json.RawMessage

// ServerInfoMeta returns io.modelcontextprotocol/serverInfo from a
// result's _meta, when present.
func (m Meta) ServerInfoMeta() (Implementation, bool) {
	var info Implementation
	raw, ok := m["io.modelcontextprotocol/serverInfo"]
	if !ok || unmarshal(raw, &info) != nil {
		return Implementation{}, false
	}
	return info, true
}

// Tool describes a tool the server offers.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Content is one content block of a tool result, prompt message or
// sampling message. Type says which fields are set: "text" (Text),
// "image" and "audio" (Data, base64, and MimeType), "resource_link" (URI,
// Name, ...), "resource" (Resource); other types keep their fields in
// Raw.
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

// CallToolResult is the result of a tool call. IsError marks a failure the
// tool reports to the model; it is not a Go error.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
}

// Resource describes a resource the server offers.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// ResourceContents is the content of a resource: Text, or Blob (base64).
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Meta     Meta               `json:"_meta,omitempty"`
}

// Prompt describes a prompt the server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptArgument describes one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// Reference names what a completion is for: a prompt (Type "ref/prompt",
// Name) or a resource template (Type "ref/resource", URI).
type Reference struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef returns the reference to a prompt.
func PromptRef(name string) Reference { return Reference{Type: "ref/prompt", Name: name} }

// ResourceRef returns the reference to a resource template.
func ResourceRef(uriTemplate string) Reference {
	return Reference{Type: "ref/resource", URI: uriTemplate}
}

// Completion is the completion/complete result's completion object.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int64   `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// Progress is one progress notification for a request.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// LogMessage is one notifications/message from the server.
type LogMessage struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// InputRequest is one request for input in a multi round-trip result
// (2026-07-28), or the body of a server-to-client request (initialize
// era): Method is elicitation/create, sampling/createMessage or
// roots/list.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ElicitRequest asks the user for information: in form mode through a
// flat schema, in URL mode by sending them to a URL.
type ElicitRequest struct {
	// Mode is "form" or "url" (an empty mode means form).
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the user's answer: Action "accept" (with Content in
// form mode), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// SamplingMessage is one message of a sampling request or result.
type SamplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// CreateMessageRequest asks the client's model for a completion. Raw
// holds the whole params object, for fields this type does not name.
type CreateMessageRequest struct {
	Messages      []SamplingMessage `json:"messages"`
	SystemPrompt  string            `json:"systemPrompt,omitempty"`
	MaxTokens     int64             `json:"maxTokens"`
	Temperature   *float64          `json:"temperature,omitempty"`
	StopSequences []string          `json:"stopSequences,omitempty"`
	Raw           json.RawMessage   `json:"-"`
}

// CreateMessageResult is the model's answer to a sampling request.
type CreateMessageResult struct {
	Role       string  `json:"role"`
	Content    Content `json:"content"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
}

// Root is a directory or file the client lets the server work in.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// SubscriptionFilter says which notifications a listen stream carries.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}
