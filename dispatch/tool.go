package dispatch

import (
	"context"
	"encoding/json"
)

// Tool describes a tool the client can call. InputSchema and OutputSchema
// are raw JSON Schemas passed to tools/list byte for byte; a nil InputSchema
// is sent as {"type":"object"}.
type Tool struct {
	// Name is 1 to 64 characters of [A-Za-z0-9_./-], unique in the Runtime.
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour. A nil hint
// is left out, so the client applies the protocol's default.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolHandler runs a tool call. ctx is cancelled when the client cancels the
// request, disconnects, or the request deadline passes.
//
// A returned *jsonrpc.Error (found with errors.As) becomes that JSON-RPC
// error; any other error becomes a result with isError set and the error's
// text as content, so the model can see it and correct itself. A panic
// becomes -32603 for this request only and is logged with its stack.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// CallToolRequest is what a ToolHandler receives.
type CallToolRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the raw arguments object ({} when the client sent none).
	Arguments json.RawMessage
	// Info describes the request: protocol version, client capabilities,
	// principal.
	Info *RequestInfo
}

// CallToolResult is the result of a tool call.
type CallToolResult struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// TextResult returns a result with one text block.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{Text(text)}}
}

// ErrorResult returns a result with isError set and one text block.
func ErrorResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{Text(text)}, IsError: true}
}

// ToolEntry pairs a Tool with its handler.
type toolEntry struct {
	tool    Tool
	handler ToolHandler
}
