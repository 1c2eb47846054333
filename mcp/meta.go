// The reserved keys of the _meta objects requests and results carry.

package mcp

// Reserved _meta keys. The io.modelcontextprotocol/ ones are defined by
// 2026-07-28; progressToken by every revision.
const (
	// MetaProtocolVersion names the revision a request is sent under.
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities carries the client's capabilities for one
	// request.
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo carries the client's self-description (unverified).
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaLogLevel is the lowest level of log messages the client wants
	// for one request.
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo carries the server's self-description in results.
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaSubscriptionID tags the notifications of a subscriptions/listen
	// stream with the id of the listen request.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaProgressToken is the token progress notifications refer to.
	MetaProgressToken = "progressToken"
)
