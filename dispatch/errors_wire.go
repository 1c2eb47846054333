// The 2026-07-28 errors whose data the dispatch core fills in: header
// mismatches (-32020) and unsupported revisions (-32022).

package dispatch

import (
	"slices"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// headerMismatchError returns the -32020 error, its message "Header
// mismatch: " followed by detail, and data when it is not nil.
func headerMismatchError(detail string, data any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "Header mismatch: " + detail}
	if data != nil {
		e.Data = data
	}
	return e
}

// unsupportedVersionError returns the -32022 error for a request
// naming a revision that is not served. Its data lists the served
// revisions ("supported") and the one asked for ("requested"); detail,
// when not empty, is added to the message.
func unsupportedVersionError(requested string, supported []string, detail string) *jsonrpc.Error {
	msg := "Unsupported protocol version: " + requested
	if detail != "" {
		msg += " " + detail
	}
	return (&jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: msg}).
		WithData(map[string]any{"supported": slices.Clone(supported), "requested": requested})
}
