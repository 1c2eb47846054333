// Package mcp is the vocabulary of the Model Context Protocol that the
// server core (package dispatch) and the client (package client) share:
// the protocol revisions, the reserved _meta keys, the HTTP header names,
// the MCP error codes with constructors for the errors that carry data,
// and the wire types.
//
// It holds no behaviour beyond encoding: no transport, no dispatch, no
// callbacks. Everything here is a value that travels on the wire, named
// as the specification names it (https://modelcontextprotocol.io/specification).
// The plain JSON-RPC 2.0 layer it builds on is package jsonrpc.
package mcp
