// Package oauthmeta holds the OAuth vocabulary the MCP client and the
// resource server share: authorization server metadata and its discovery
// (RFC 8414, OpenID Connect Discovery 1.0, in the order the MCP
// authorization specification gives), the protected resource metadata
// document (RFC 9728), and WWW-Authenticate challenges (RFC 9110 §11.6.1,
// RFC 6750 §3). Standard library only.
package oauthmeta
