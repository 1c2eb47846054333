// The verified identity of a request: Principal.
package oauth

import (
	"slices"
	"strconv"
	"time"

	"github.com/snodo-go/snodo/dispatch"
)

// Principal is what a verified access token says. The [Middleware]
// attaches it to the request (streamablehttp.ContextWithPrincipal), so
// handlers and the dispatch.Authorizer find it as a *Principal in
// RequestInfo.Principal. Treat it as read-only.
//
// A Principal is a new value per token; its [Principal.PrincipalID] is the
// party's identity, so that a refreshed token is still the same party.
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

var _ dispatch.IdentifiedPrincipal = (*Principal)(nil)

// PrincipalID implements dispatch.IdentifiedPrincipal: the issuer and the
// subject, so that a refreshed token (a new Principal) keeps a session
// bound to its principal (streamablehttp.SessionConfig.BindPrincipal) and
// its multi round-trip requestState, and another subject's token does
// not. A token without a subject is identified by its issuer and client
// instead; one with neither, or without an issuer, has no identity ("":
// it matches no other Principal).
func (p *Principal) PrincipalID() string {
	switch {
	case p == nil || p.Issuer == "":
		return ""
	case p.Subject != "":
		return strconv.Quote(p.Issuer) + " sub " + strconv.Quote(p.Subject)
	case p.ClientID != "":
		return strconv.Quote(p.Issuer) + " client " + strconv.Quote(p.ClientID)
	}
	return ""
}
