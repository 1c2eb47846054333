// The token endpoint: the code exchange and the refresh.
package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// maxTokenResponse bounds a token or registration response.
const maxTokenResponse = 64 << 10

// tokenRequest posts form to the token endpoint with the registration's
// client authentication and reads the token. requested are the scopes
// asked for, kept as the granted ones when the response names none.
func (f *Flow) tokenRequest(ctx context.Context, as *oauthmeta.AuthorizationServer, reg *registration, form url.Values, requested []string) (*Token, error) {
	switch reg.authMethod {
	case "client_secret_post":
		form.Set("client_id", reg.clientID)
		form.Set("client_secret", reg.clientSecret)
	case "client_secret_basic":
	default:
		form.Set("client_id", reg.clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if reg.authMethod == "client_secret_basic" {
		// RFC 6749 §2.3.1: each part form-encoded first.
		req.SetBasicAuth(url.QueryEscape(reg.clientID), url.QueryEscape(reg.clientSecret))
	}
	grant := form.Get("grant_type")
	resp, err := f.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: token request (%s): %w", grant, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil {
		return nil, fmt.Errorf("oauth: token request (%s): %w", grant, err)
	}
	if len(b) > maxTokenResponse {
		return nil, fmt.Errorf("oauth: token request (%s): the response exceeds %d bytes", grant, maxTokenResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("oauth: token request (%s): HTTP %d: %s", grant, resp.StatusCode, oauthError(b))
	}
	var out struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		ExpiresIn    int64  `json:"expires_in"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("oauth: token request (%s): the response is not JSON", grant)
	}
	if out.AccessToken == "" {
		return nil, fmt.Errorf("oauth: token request (%s): the response has no access_token", grant)
	}
	if !strings.EqualFold(out.TokenType, "Bearer") {
		return nil, fmt.Errorf("oauth: token request (%s): token type %q is not Bearer", grant, out.TokenType)
	}
	t := &Token{
		AccessToken:  out.AccessToken,
		RefreshToken: out.RefreshToken,
		Scopes:       requested,
		Issuer:       as.Issuer,
		ClientID:     reg.clientID,
		ClientSecret: reg.clientSecret,
		RedirectURL:  reg.redirectURL,
	}
	if out.Scope != "" {
		t.Scopes = splitScopes(out.Scope)
	}
	if out.ExpiresIn > 0 {
		t.Expiry = f.cfg.Now().Add(time.Duration(out.ExpiresIn) * time.Second)
	}
	return t, nil
}

// refresh renews t with its refresh token (RFC 6749 §6, with the
// resource indicator) and keeps the result. The refresh token is kept
// when the server does not rotate it; one the server refuses is dropped.
func (f *Flow) refresh(ctx context.Context, t *Token) (*Token, error) {
	prm, as, err := f.discover(ctx, "")
	if err != nil {
		return nil, err
	}
	if as.Issuer != t.Issuer {
		return nil, fmt.Errorf("oauth: the token was issued by %s, the server now names %s", t.Issuer, as.Issuer)
	}
	method := "none"
	if t.ClientSecret != "" {
		method = "client_secret_basic"
	}
	reg := &registration{clientID: t.ClientID, clientSecret: t.ClientSecret, authMethod: method, redirectURL: t.RedirectURL}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {t.RefreshToken},
		"resource":      {prm.Resource},
	}
	nt, err := f.tokenRequest(ctx, as, reg, form, t.Scopes)
	if err != nil {
		if ctx.Err() == nil {
			dropped := *t
			dropped.RefreshToken = ""
			_ = f.keep(ctx, &dropped)
		}
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = t.RefreshToken
	}
	if err := f.keep(ctx, nt); err != nil {
		return nil, err
	}
	return nt, nil
}

// oauthError renders an OAuth error response (RFC 6749 §5.2) for an error
// message, or a short, printable start of an unexpected body.
func oauthError(b []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		if e.Description != "" {
			return e.Error + ": " + e.Description
		}
		return e.Error
	}
	if len(b) > 120 {
		b = b[:120]
	}
	return strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if r < 0x20 {
			return ' '
		}
		return r
	}, string(b)), "?")
}
