// Package oauth makes an MCP server served over HTTP an OAuth 2.1
// resource server, as the MCP authorization specification (2025-11-25,
// 2026-07-28) asks:
//
//   - [ResourceMetadata] is the protected resource metadata document
//     (RFC 9728), served at its well-known path;
//   - [Middleware] checks the bearer token of every request, for the
//     native listener (streamablehttp.WithHTTPMiddleware) and for a
//     streamablehttp.Handler in the application's own mux: no token is
//     401 with the challenge naming the metadata, an invalid or expired
//     one 401 invalid_token, a valid one without the scopes a call needs
//     403 insufficient_scope (RFC 6750 §3.1), and a token in the query
//     string 400; the verified [Principal] reaches handlers and the
//     dispatch.Authorizer as the request's principal;
//   - [JWTVerifier] verifies JWT access tokens (RFC 9068) with a key set
//     fetched from the issuer (discovered through RFC 8414 or OpenID
//     metadata) and cached; [Introspector] asks the authorization server
//     about opaque tokens (RFC 7662) and caches the answer within the
//     token's lifetime;
//   - [ScopePolicy] is a dispatch.Authorizer that requires scopes per
//     tool, resource (or template) and prompt: lists show a token what it
//     may use, and a call beyond its scopes is refused (403 over HTTP).
//
// The audience is never optional: a token is accepted only when it names
// the configured resource (RFC 8707). Tokens and claims never reach a log
// or an instrumentation event.
//
// This package is a module of its own because it needs a JOSE library
// (github.com/go-jose/go-jose/v4); the core module does not.
package oauth
