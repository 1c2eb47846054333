// Bearer tokens on the HTTP transport: the TokenSource that supplies
// them and the ChallengeHandler told of a server's refusal.
package client

import (
	"context"
	"errors"
	"net/http"
)

// ErrUnauthorized: the server refused the request's credentials (HTTP 401
// or 403), and the transport's TokenSource could not obtain better ones.
// The error also wraps the TokenSource's own error.
var ErrUnauthorized = errors.New("client: the server refused the credentials")

// TokenSource supplies the access token each HTTP request carries as
// "Authorization: Bearer <token>" ([HTTPTransport].TokenSource). It is
// called for every request, concurrently; "" sends no token.
// client/oauth implements the MCP authorization flow as a TokenSource.
type TokenSource interface {
	// Token returns the access token for the next request.
	Token(ctx context.Context) (string, error)
}

// ChallengeHandler is a TokenSource that can answer a server's refusal.
// When a request gets 401 or 403, the transport calls HandleChallenge;
// nil means a better token is available, and the request is sent again
// (at most twice in all), an error ends it with [ErrUnauthorized].
type ChallengeHandler interface {
	TokenSource
	// HandleChallenge answers a 401 or 403: nil when a better token is
	// now available.
	HandleChallenge(ctx context.Context, ch *AuthChallenge) error
}

// AuthChallenge is a refusal of a request's credentials.
type AuthChallenge struct {
	// URL is the MCP endpoint that refused.
	URL string
	// StatusCode is 401 (no valid token) or 403 (a valid token that is
	// not enough, such as insufficient_scope).
	StatusCode int
	// Header is the response's header; WWW-Authenticate carries the
	// challenge.
	Header http.Header
	// Token is the access token the refused request carried ("" for
	// none), so that a handler can tell whether it was renewed since.
	Token string
}

// StaticToken returns a TokenSource that always supplies token.
func StaticToken(token string) TokenSource { return staticToken(token) }

type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

// maxAuthRetries bounds how often one request is sent again after a
// ChallengeHandler renewed its token.
const maxAuthRetries = 2
