// Package oauth is the MCP authorization flow for clients: a
// [client.ChallengeHandler] that logs in to a protected MCP server the way
// the MCP authorization specification (2025-11-25, 2026-07-28) describes,
// with the standard library only.
//
// Set a [Flow] as the HTTP transport's TokenSource. The first request the
// server refuses with 401 starts a login: the challenge's
// resource_metadata (or the well-known locations) gives the protected
// resource metadata (RFC 9728), whose authorization server's metadata is
// discovered (RFC 8414, then OpenID Connect Discovery); the client is
// identified by a pre-registered id, a client ID metadata document, or
// dynamic registration (RFC 7591), in that order of preference; the user
// is sent to the authorization endpoint with PKCE (S256), a state and the
// resource indicator (RFC 8707), and the redirect comes back to a
// listener on the loopback interface; the issuer of the response is
// checked (RFC 9207) before the code is exchanged. Tokens are refreshed
// when they expire, and a 403 insufficient_scope challenge is answered by
// a new authorization for the union of the scopes asked for so far and
// the ones the server needs (step-up).
//
// Tokens live in memory unless [Config].Store keeps them elsewhere. The
// flow never logs or returns a token in an error.
package oauth
