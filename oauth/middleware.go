// The bearer middleware: every request's token checked, the 400, 401 and
// 403 challenges, the principal attached.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/oauthmeta"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// DefaultMaxTokenBytes bounds an access token; a longer one is refused
// (401 invalid_token) unread.
const DefaultMaxTokenBytes = 8192

// Verifier checks an access token and says whom it speaks for. An error
// wrapping [ErrInvalidToken] refuses the token (401); [ErrUnavailable]
// means it could not be checked (503). [JWTVerifier] and [Introspector]
// are verifiers.
type Verifier interface {
	Verify(ctx context.Context, token string) (*Principal, error)
}

// Middleware protects an MCP endpoint: build it with [NewMiddleware] and
// wrap the endpoint with [Middleware.Wrap].
type Middleware struct {
	md       ResourceMetadata
	doc      http.Handler
	verifier Verifier
	required []string
	maxToken int
	logger   *slog.Logger
}

// Option configures a Middleware ([NewMiddleware]).
type Option interface {
	applyMiddleware(*Middleware) error
}

// option is an Option with its name, which NewMiddleware's error names.
type option struct {
	name  string
	apply func(*Middleware) error
}

func (o option) applyMiddleware(m *Middleware) error {
	if err := o.apply(m); err != nil {
		return fmt.Errorf("oauth: %s: %w", o.name, err)
	}
	return nil
}

// WithRequiredScopes makes every request need scopes, whatever it
// calls (403 insufficient_scope without them). The 401 challenge names
// them, so a client asks for them first.
func WithRequiredScopes(scopes ...string) Option {
	return option{"WithRequiredScopes", func(m *Middleware) error {
		for _, s := range scopes {
			if s == "" || strings.ContainsAny(s, " \"\\") {
				return fmt.Errorf("scope %q is not a scope token", s)
			}
		}
		m.required = append(m.required, scopes...)
		return nil
	}}
}

// WithMaxTokenBytes bounds an access token (default
// [DefaultMaxTokenBytes]).
func WithMaxTokenBytes(n int) Option {
	return option{"WithMaxTokenBytes", func(m *Middleware) error {
		if n <= 0 {
			return errors.New("the bound must be positive")
		}
		m.maxToken = n
		return nil
	}}
}

// WithLogger logs each refusal at Debug (its status and reason, never the
// token or a claim) and each unavailable authorization server at Warn.
// Default: no logging.
func WithLogger(l *slog.Logger) Option {
	return option{"WithLogger", func(m *Middleware) error {
		if l == nil {
			return errors.New("nil logger")
		}
		m.logger = l
		return nil
	}}
}

// NewMiddleware returns the middleware for the resource md describes,
// accepting what v verifies.
func NewMiddleware(md ResourceMetadata, v Verifier, opts ...Option) (*Middleware, error) {
	if err := md.check(); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("oauth: nil verifier")
	}
	m := &Middleware{md: md, verifier: v, maxToken: DefaultMaxTokenBytes, logger: slog.New(slog.DiscardHandler)}
	m.doc = m.md.Handler()
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("oauth: nil option")
		}
		if err := o.applyMiddleware(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Metadata returns the resource's metadata document description.
func (m *Middleware) Metadata() *ResourceMetadata { return &m.md }

// Wrap returns next protected. The metadata document is served at its
// path without a token; every other request needs a valid one. Give
// Wrap to streamablehttp.WithHTTPMiddleware for the native listener; in
// an application's mux, mount the wrapped handler at the endpoint and
// [ResourceMetadata.Handler] at [ResourceMetadata.Path] (or the wrapped
// handler at both).
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.md.pathMatches(r.URL.Path) {
			m.doc.ServeHTTP(w, r)
			return
		}
		p, ok := m.authenticate(w, r)
		if !ok {
			return
		}
		ctx := streamablehttp.ContextWithPrincipal(r.Context(), p)
		cw := &challengeWriter{ResponseWriter: w, m: m}
		next.ServeHTTP(cw, r.WithContext(ctx))
		cw.finish()
	})
}

// authenticate verifies the request's token, or answers the refusal.
func (m *Middleware) authenticate(w http.ResponseWriter, r *http.Request) (*Principal, bool) {
	if r.URL.Query().Has("access_token") {
		// RFC 6750 §2.3 is forbidden by the MCP authorization
		// specification: tokens travel in the Authorization header only.
		m.refuse(w, r, http.StatusBadRequest, "invalid_request", "access tokens are accepted in the Authorization header only", nil)
		return nil, false
	}
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		m.refuse(w, r, http.StatusBadRequest, "invalid_request", "more than one Authorization header", nil)
		return nil, false
	}
	var token string
	if len(values) == 1 {
		scheme, rest, _ := strings.Cut(values[0], " ")
		if strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimLeft(rest, " ")
		}
	}
	if token == "" {
		// No credentials: the challenge carries no error code (RFC 6750
		// §3.1).
		m.refuse(w, r, http.StatusUnauthorized, "", "", m.required)
		return nil, false
	}
	if len(token) > m.maxToken {
		m.refuse(w, r, http.StatusUnauthorized, "invalid_token", "token larger than the bound", nil)
		return nil, false
	}
	if !isB64Token(token) {
		m.refuse(w, r, http.StatusUnauthorized, "invalid_token", "malformed token", nil)
		return nil, false
	}
	p, err := m.verifier.Verify(r.Context(), token)
	switch {
	case err == nil && p == nil:
		err = errors.New("the verifier returned no principal")
		fallthrough
	case err != nil && !errors.Is(err, ErrInvalidToken):
		m.logger.Warn("oauth: token not checked", "status", http.StatusServiceUnavailable, "reason", err.Error())
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the authorization server is unavailable", http.StatusServiceUnavailable)
		return nil, false
	case err != nil:
		m.refuse(w, r, http.StatusUnauthorized, "invalid_token", describe(err), nil)
		return nil, false
	}
	if missing := missingScopes(p.Scopes, m.required); len(missing) > 0 {
		m.refuse(w, r, http.StatusForbidden, "insufficient_scope", "the token lacks a scope this server requires", m.required)
		return nil, false
	}
	return p, true
}

// refuse answers a request with a Bearer challenge and a small JSON body
// (RFC 6750 §3).
func (m *Middleware) refuse(w http.ResponseWriter, r *http.Request, status int, code, description string, scopes []string) {
	m.logger.Debug("oauth: request refused", "status", status, "error", code, "reason", description, "method", r.Method, "path", r.URL.Path)
	h := w.Header()
	h.Set("WWW-Authenticate", m.challenge(code, description, scopes))
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	body := `{}`
	if code != "" {
		body = fmt.Sprintf(`{"error":%q,"error_description":%q}`, code, description)
	}
	_, _ = w.Write([]byte(body))
}

// challenge renders the WWW-Authenticate value.
func (m *Middleware) challenge(code, description string, scopes []string) string {
	return oauthmeta.FormatBearer(
		oauthmeta.Param{Name: "error", Value: code},
		oauthmeta.Param{Name: "error_description", Value: description},
		oauthmeta.Param{Name: "scope", Value: strings.Join(scopes, " ")},
		oauthmeta.Param{Name: "resource_metadata", Value: m.md.URL()},
	)
}

func missingScopes(granted, need []string) []string {
	var out []string
	for _, s := range need {
		if !slices.Contains(granted, s) {
			out = append(out, s)
		}
	}
	return out
}

// isB64Token checks the token68 form RFC 6750 §2.1 gives a bearer token.
func isB64Token(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}
