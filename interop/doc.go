// Package interop drives the fixture server (examples/everything) and the
// quickstart, each as a separate process, with real MCP clients: the
// official Go SDK, mcp-go, the TypeScript SDKs and the MCP Inspector CLI.
// It also drives the official Go SDK's conformance server with this
// repository's client. It is a module of its own so that the peers'
// modules never enter the library's go.mod; its tests are its content.
package interop
