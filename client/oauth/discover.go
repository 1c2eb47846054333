// Discovery: the server's protected resource metadata (RFC 9728) and its
// authorization server's metadata (RFC 8414 / OpenID Connect Discovery).
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// discover returns the resource's metadata and its authorization
// server's, fetching them when the flow has none yet or the challenge
// names another metadata document. The resource metadata must describe
// this server (RFC 9728 §3.3), the authorization server's must name the
// issuer it was looked up for, and PKCE with S256 must be supported.
func (f *Flow) discover(ctx context.Context, metadataURL string) (*oauthmeta.ProtectedResource, *oauthmeta.AuthorizationServer, error) {
	f.mu.Lock()
	prm, as := f.prm, f.as
	f.mu.Unlock()
	if prm != nil && as != nil && metadataURL == "" {
		return prm, as, nil
	}
	prm, err := f.resourceMetadata(ctx, metadataURL)
	if err != nil {
		return nil, nil, err
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, nil, fmt.Errorf("oauth: the protected resource metadata of %s names no authorization server", f.resource)
	}
	// RFC 9728 §7.6 leaves the choice to the client: the first listed.
	issuer := prm.AuthorizationServers[0]
	as, err = oauthmeta.Discover(ctx, f.cfg.HTTPClient, issuer)
	if err != nil {
		return nil, nil, fmt.Errorf("oauth: %w", err)
	}
	if !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, nil, fmt.Errorf("%w (%s)", ErrNoPKCE, issuer)
	}
	if as.AuthorizationEndpoint == "" || as.TokenEndpoint == "" {
		return nil, nil, fmt.Errorf("oauth: the metadata of %s lacks an authorization or token endpoint", issuer)
	}
	f.mu.Lock()
	f.prm, f.as = prm, as
	f.mu.Unlock()
	return prm, as, nil
}

// resourceMetadata fetches the document the challenge named, or looks for
// it at the well-known locations.
func (f *Flow) resourceMetadata(ctx context.Context, metadataURL string) (*oauthmeta.ProtectedResource, error) {
	urls := []string{metadataURL}
	if metadataURL == "" {
		var err error
		if urls, err = oauthmeta.ResourceMetadataURLs(f.resource); err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
	} else if u, err := url.Parse(metadataURL); err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("oauth: the challenge's resource_metadata %q is not an http(s) URL", metadataURL)
	}
	var errs []error
	for _, u := range urls {
		var prm oauthmeta.ProtectedResource
		err := oauthmeta.GetJSON(ctx, f.cfg.HTTPClient, u, 0, &prm)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		if !sameResource(prm.Resource, f.resource) {
			return nil, fmt.Errorf("oauth: the protected resource metadata at %s describes %q, not %s", u, prm.Resource, f.resource)
		}
		return &prm, nil
	}
	return nil, fmt.Errorf("oauth: no protected resource metadata for %s: %w", f.resource, errors.Join(errs...))
}

// sameResource compares resource identifiers as RFC 8707 and the MCP
// specification ask: scheme and host without regard to case, a trailing
// slash on an empty path ignored, the rest exactly.
func sameResource(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	norm := func(u *url.URL) string {
		p := u.EscapedPath()
		if p == "/" {
			p = ""
		}
		q := ""
		if u.RawQuery != "" {
			q = "?" + u.RawQuery
		}
		return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p + q
	}
	return norm(ua) == norm(ub)
}
