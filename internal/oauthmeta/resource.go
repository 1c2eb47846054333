// The protected resource metadata document (RFC 9728).
package oauthmeta

import (
	"fmt"
	"net/url"
	"strings"
)

// WellKnownResourcePath is the well-known URI suffix of protected
// resource metadata (RFC 9728 §3).
const WellKnownResourcePath = "/.well-known/oauth-protected-resource"

// ProtectedResource is a protected resource metadata document (RFC 9728
// §2).
type ProtectedResource struct {
	Resource                          string   `json:"resource"`
	AuthorizationServers              []string `json:"authorization_servers,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported            []string `json:"bearer_methods_supported,omitempty"`
	ResourceName                      string   `json:"resource_name,omitempty"`
	ResourceDocumentation             string   `json:"resource_documentation,omitempty"`
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
}

// ResourceMetadataURLs lists where the metadata of the resource at
// resource is looked for without a challenge naming it: with the path
// inserted after the well-known prefix, then at the root (the MCP
// authorization specification's order; one URL when the resource has no
// path).
func ResourceMetadataURLs(resource string) ([]string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + WellKnownResourcePath}, nil
	}
	return []string{origin + WellKnownResourcePath + path, origin + WellKnownResourcePath}, nil
}

// ResourceMetadataPath is the path of the metadata document of the
// resource at resource (RFC 9728 §3.1): the well-known prefix followed by
// the resource's path.
func ResourceMetadataPath(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	return WellKnownResourcePath + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}
