package client

// What the Client reports of the server it connected to.

import (
	"github.com/snodo-go/snodo/mcp"
)

// stateless reports whether a revision has no initialize handshake.
func stateless(version string) bool { return version >= mcp.Version20260728 }

// ServerInfo is what the client learned about the server when it
// connected.
type ServerInfo struct {
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string
	// SupportedVersions are the revisions the server named
	// (server/discover), or the negotiated one (initialize).
	SupportedVersions []string
	// Implementation is the server's self-description, when it sent one.
	Implementation mcp.Implementation
	// Capabilities are the server's capabilities.
	Capabilities mcp.ServerCapabilities
	// Instructions tell a model how to use the server.
	Instructions string
}
