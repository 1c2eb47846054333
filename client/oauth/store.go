// Where tokens are kept between requests: TokenStore and the in-memory
// default.
package oauth

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Token is what a login obtained for one MCP server.
type Token struct {
	// AccessToken is sent as the bearer token.
	AccessToken string
	// RefreshToken renews AccessToken without the user; "" when the
	// authorization server issued none.
	RefreshToken string
	// Expiry is when AccessToken expires; zero when unknown.
	Expiry time.Time
	// Scopes are the scopes granted (those requested, when the token
	// response did not say).
	Scopes []string
	// Issuer is the authorization server that issued the token.
	Issuer string
	// ClientID and ClientSecret are the client registration the token was
	// obtained with; a refresh uses them. ClientSecret is "" for a public
	// client.
	ClientID, ClientSecret string
	// RedirectURL is the redirect URI the registration names, so that a
	// later login can listen on the same port.
	RedirectURL string
}

// TokenStore keeps tokens by MCP server (its resource identifier). Calls
// may be concurrent.
type TokenStore interface {
	// Load returns the token kept for resource, or nil when there is none.
	Load(ctx context.Context, resource string) (*Token, error)
	// Save keeps t for resource, replacing any earlier token.
	Save(ctx context.Context, resource string, t *Token) error
}

// memoryStore is the default TokenStore.
type memoryStore struct {
	mu     sync.Mutex
	tokens map[string]Token
}

func (m *memoryStore) Load(_ context.Context, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[resource]
	if !ok {
		return nil, nil
	}
	t.Scopes = slices.Clone(t.Scopes)
	return &t, nil
}

func (m *memoryStore) Save(_ context.Context, resource string, t *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[string]Token{}
	}
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	m.tokens[resource] = c
	return nil
}
