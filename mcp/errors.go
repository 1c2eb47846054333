// The MCP error codes, beyond JSON-RPC's own, and constructors for the
// errors that carry data.

package mcp

import (
	"slices"

	"github.com/snodo-go/snodo/jsonrpc"
)

// MCP error codes. The standard JSON-RPC codes are in package jsonrpc.
const (
	// CodeResourceNotFound answers a read of an unknown resource on the
	// initialize-era revisions (2025-06-18, 2025-11-25); 2026-07-28 uses
	// -32602 with data.uri instead.
	CodeResourceNotFound = -32002
	// CodeHeaderMismatch: HTTP headers missing, malformed or unequal to
	// the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: the work needs a capability the
	// request did not declare (2026-07-28).
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the requested revision is not
	// served (2026-07-28).
	CodeUnsupportedProtocolVersion = -32022
	// CodeURLElicitationRequired: the request needs a URL elicitation
	// first (2025-11-25).
	CodeURLElicitationRequired = -32042
)

// NewHeaderMismatchError returns the -32020 error, its message "Header
// mismatch: " followed by detail, and data when it is not nil.
func NewHeaderMismatchError(detail string, data any) *jsonrpc.Error {
	e := jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: "+detail)
	if data != nil {
		e.Data = data
	}
	return e
}

// NewUnsupportedVersionError returns the -32022 error for a request
// naming a revision that is not served. Its data lists the served
// revisions ("supported") and the one asked for ("requested"); detail,
// when not empty, is added to the message.
func NewUnsupportedVersionError(requested string, supported []string, detail string) *jsonrpc.Error {
	msg := "Unsupported protocol version: " + requested
	if detail != "" {
		msg += " " + detail
	}
	return jsonrpc.NewError(CodeUnsupportedProtocolVersion, msg).
		WithData(map[string]any{"supported": slices.Clone(supported), "requested": requested})
}

// NewMissingCapabilityError returns the -32021 error whose
// data.requiredCapabilities is what every one of required declares,
// merged (nil entries are skipped).
func NewMissingCapabilityError(required ...*ClientCapabilities) *jsonrpc.Error {
	var need ClientCapabilities
	for _, r := range required {
		if r != nil {
			need.merge(r)
		}
	}
	return jsonrpc.NewError(CodeMissingRequiredClientCapability, "Missing required client capability").
		WithData(map[string]any{"requiredCapabilities": need})
}
