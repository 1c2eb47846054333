// Authorization server metadata and its discovery.
package oauthmeta

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// AuthorizationServer is the part of an authorization server's metadata
// (RFC 8414 §2, OpenID Connect Discovery 1.0 §3) that MCP uses.
type AuthorizationServer struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// DiscoveryURLs lists where the metadata of issuer is looked for, in the
// order the MCP authorization specification gives: RFC 8414 with path
// insertion, OpenID Connect Discovery with path insertion, then with the
// path appended (the last two are one URL when the issuer has no path).
func DiscoveryURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL without query or fragment", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}, nil
}

// Discover fetches the metadata of issuer from the first discovery URL
// that has it. A document whose issuer is not exactly issuer is refused
// (RFC 8414 §3.3), as is one served over another scheme than issuer's.
func Discover(ctx context.Context, hc *http.Client, issuer string) (*AuthorizationServer, error) {
	urls, err := DiscoveryURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		var md AuthorizationServer
		err := GetJSON(ctx, hc, u, 0, &md)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.StatusCode/100 == 4 {
				errs = append(errs, err)
				continue // not at this location
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", u, md.Issuer, issuer)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for %s: %w", issuer, errors.Join(errs...))
}
