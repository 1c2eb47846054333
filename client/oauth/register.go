// The client's identity at the authorization server: a pre-registered
// id, a client ID metadata document, or dynamic registration (RFC 7591).
package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// registration is a client id (and secret) at one authorization server.
type registration struct {
	clientID     string
	clientSecret string
	authMethod   string // token_endpoint_auth_method: none, client_secret_basic or client_secret_post
	redirectURL  string // the redirect URI registered; "" when any listed one serves
}

// identify chooses the client id in the specification's order of
// preference: a pre-registered id; a client ID metadata document where
// the server supports them; an earlier dynamic registration with this
// server (kept in memory, or in the stored token); a new one.
func (f *Flow) identify(ctx context.Context, as *oauthmeta.AuthorizationServer, redirect string) (*registration, error) {
	switch {
	case f.cfg.ClientID != "":
		method := "none"
		if f.cfg.ClientSecret != "" {
			method = "client_secret_basic"
		}
		return &registration{clientID: f.cfg.ClientID, clientSecret: f.cfg.ClientSecret, authMethod: method}, nil
	case f.cfg.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		return &registration{clientID: f.cfg.ClientMetadataURL, authMethod: "none"}, nil
	}
	f.mu.Lock()
	reg := f.reg[as.Issuer]
	t := f.token
	f.mu.Unlock()
	if reg == nil && t != nil && t.Issuer == as.Issuer && t.ClientID != "" && t.ClientID != f.cfg.ClientMetadataURL {
		method := "none"
		if t.ClientSecret != "" {
			method = "client_secret_basic"
		}
		reg = &registration{clientID: t.ClientID, clientSecret: t.ClientSecret, authMethod: method, redirectURL: t.RedirectURL}
	}
	if reg != nil && (reg.redirectURL == "" || reg.redirectURL == redirect) {
		return reg, nil
	}
	if as.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w (%s)", ErrNoRegistration, as.Issuer)
	}
	reg, err := f.register(ctx, as, redirect)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.reg[as.Issuer] = reg
	f.mu.Unlock()
	return reg, nil
}

// register performs dynamic client registration as a native public
// client whose only redirect URI is redirect.
func (f *Flow) register(ctx context.Context, as *oauthmeta.AuthorizationServer, redirect string) (*registration, error) {
	body, _ := json.Marshal(map[string]any{
		"client_name":                f.cfg.ClientName,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := f.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: registering the client: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil {
		return nil, fmt.Errorf("oauth: registering the client: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("oauth: registering the client: HTTP %d: %s", resp.StatusCode, oauthError(b))
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ClientID == "" {
		return nil, fmt.Errorf("oauth: registering the client: the response has no client_id")
	}
	if out.AuthMethod == "" {
		out.AuthMethod = "client_secret_basic" // RFC 7591 §2's default
		if out.ClientSecret == "" {
			out.AuthMethod = "none"
		}
	}
	return &registration{clientID: out.ClientID, clientSecret: out.ClientSecret, authMethod: out.AuthMethod, redirectURL: redirect}, nil
}
