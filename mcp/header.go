// The HTTP header names of the Streamable HTTP transport.

package mcp

// HTTP header names, in the canonical form net/http uses as map keys.
const (
	// HeaderProtocolVersion names the revision of an HTTP request (every
	// request after initialize; every 2026-07-28 request, equal to the
	// body's _meta).
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// HeaderMethod mirrors the JSON-RPC method (2026-07-28).
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors params.name of tools/call and prompts/get, and
	// params.uri of resources/read (2026-07-28).
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix begins the headers that mirror tool arguments
	// annotated with x-mcp-header (2026-07-28).
	HeaderParamPrefix = "Mcp-Param-"
	// HeaderSessionID carries the session an initialize-era server issued.
	HeaderSessionID = "Mcp-Session-Id"
)
