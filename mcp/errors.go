// The MCP error codes, beyond JSON-RPC's own, and the constructor of the
// -32021 error, which merges the capabilities it asks for.

package mcp

import (
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
	return (&jsonrpc.Error{Code: CodeMissingRequiredClientCapability, Message: "Missing required client capability"}).
		WithData(map[string]any{"requiredCapabilities": need})
}
