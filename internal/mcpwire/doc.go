// Package mcpwire holds what the transports share about MCP frames
// beyond JSON-RPC and outside the dispatch core: the protocol's
// notification names, the request id a client's notifications/cancelled
// names, and the notifications/cancelled a server sends when it ends a
// subscription. Applications do not see it.
package mcpwire
