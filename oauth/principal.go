// The verified identity of a request: Principal.
package oauth

import (
	"slices"
	"time"
)

// Principal is what a verified access token says. The [Middleware]
// attaches it to the request (streamablehttp.ContextWithPrincipal), so
// handlers and the dispatch.Authorizer find it as a *Principal in
// RequestInfo.Principal. Treat it as read-only.
type Principal struct {
	// Subject is the token's sub: the user (or client) it acts for.
	Subject string
	// ClientID is the client the token was issued to (client_id, or azp).
	ClientID string
	// Issuer is the authorization server that issued the token.
	Issuer string
	// Scopes are the scopes granted.
	Scopes []string
	// Audience lists the resources the token is for; it includes the
	// resource that accepted it.
	Audience []string
	// Expiry is when the token expires; zero when unknown.
	Expiry time.Time
	// Claims holds every claim of a JWT, or every member of an
	// introspection response, as encoding/json decodes them.
	Claims map[string]any
}

// HasScope reports whether scope was granted.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}
