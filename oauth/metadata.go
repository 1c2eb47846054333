// The protected resource metadata document (RFC 9728) and its handler.
package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// ResourceMetadata describes the protected MCP server (RFC 9728 §2).
type ResourceMetadata struct {
	// Resource is the server's resource identifier: the canonical URL of
	// its MCP endpoint as clients reach it (the public URL behind a
	// proxy), such as "https://mcp.example.com/mcp". Tokens must name it
	// in their audience. Required: an absolute http(s) URL without
	// fragment.
	Resource string
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers whose tokens the server accepts. At least one
	// is required.
	AuthorizationServers []string
	// ScopesSupported lists the scopes a client should ask for to use the
	// server at all (the step-up challenges ask for more). Optional.
	ScopesSupported []string
	// ResourceName is a name for people. Optional.
	ResourceName string
	// ResourceDocumentation is the URL of documentation for developers.
	// Optional.
	ResourceDocumentation string
}

// check validates the metadata.
func (m *ResourceMetadata) check() error {
	u, err := url.Parse(m.Resource)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("oauth: resource %q is not an absolute http(s) URL without a fragment", m.Resource)
	}
	if len(m.AuthorizationServers) == 0 {
		return errors.New("oauth: the resource metadata needs at least one authorization server")
	}
	for _, as := range m.AuthorizationServers {
		if _, err := oauthmeta.DiscoveryURLs(as); err != nil {
			return fmt.Errorf("oauth: authorization server: %w", err)
		}
	}
	if slices.Contains(m.ScopesSupported, "offline_access") {
		return errors.New("oauth: offline_access is not a resource scope and is not advertised (MCP authorization, Refresh Tokens)")
	}
	return nil
}

// Path is the path the document is served at: the well-known prefix
// followed by the resource's path, such as
// "/.well-known/oauth-protected-resource/mcp" (RFC 9728 §3.1).
func (m *ResourceMetadata) Path() string {
	p, _ := oauthmeta.ResourceMetadataPath(m.Resource)
	return p
}

// URL is the document's URL, on the resource's origin: the
// resource_metadata of the challenges.
func (m *ResourceMetadata) URL() string {
	u, _ := url.Parse(m.Resource)
	return u.Scheme + "://" + u.Host + m.Path()
}

// document is the JSON the handler serves.
func (m *ResourceMetadata) document() []byte {
	b, _ := json.Marshal(oauthmeta.ProtectedResource{
		Resource:               m.Resource,
		AuthorizationServers:   m.AuthorizationServers,
		ScopesSupported:        m.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           m.ResourceName,
		ResourceDocumentation:  m.ResourceDocumentation,
	})
	return b
}

// Handler serves the document to GET and HEAD (405 otherwise), to any
// origin (it is public), for mounting at [ResourceMetadata.Path] in a
// mux. The [Middleware] serves it by itself.
func (m *ResourceMetadata) Handler() http.Handler {
	doc := m.document()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "max-age=300")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(doc)
	})
}

// pathMatches reports whether a request path is the document's.
func (m *ResourceMetadata) pathMatches(p string) bool {
	return p == m.Path() || strings.TrimSuffix(p, "/") == m.Path()
}
