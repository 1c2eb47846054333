// Package proxy serves a remote MCP server as a [dispatch.Runtime]: the
// remote is reached through a [client.Client] (a spawned stdio command or
// a Streamable HTTP URL, any of the three protocol revisions on the far
// side), its tools, prompts, resources and templates are registered in a
// [hub.Registry], and every call, read, get and completion is
// forwarded with its progress, log messages, cancellation and input
// requests (relayed between any revision of the remote and any of the
// proxy's client, an initialize-era remote's call held open between
// rounds). A remote's tasks extension is forwarded, the remote's task
// store staying authoritative. The Runtime can be served on any
// transport or mounted in another ([dispatch.WithMount]), which carries
// its components but not its extensions.
//
// The package sits above both the client and the server core: it imports
// client and dispatch, and neither imports it, so the client never
// depends on the server core.
package proxy
