// The Flow: a TokenSource that logs in, refreshes and steps up.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// DefaultRedirectURL is the redirect URI used unless [Config].RedirectURL
// names another: the loopback interface, on a port chosen at each login.
const DefaultRedirectURL = "http://127.0.0.1:0/callback"

// RefreshMargin is how long before its expiry an access token is renewed.
const RefreshMargin = 10 * time.Second

// Errors a Flow returns (wrapped, with the details).
var (
	// ErrNoUser: a login is needed and Config.OpenURL is nil.
	ErrNoUser = errors.New("oauth: a login is needed and no OpenURL is configured")
	// ErrNoPKCE: the authorization server does not advertise the S256
	// code challenge method, so the flow refuses to use it.
	ErrNoPKCE = errors.New("oauth: the authorization server does not support PKCE with S256")
	// ErrNoRegistration: the client has no id for the authorization
	// server and can obtain none (no client ID metadata document support,
	// no registration endpoint).
	ErrNoRegistration = errors.New("oauth: no way to obtain a client id from the authorization server")
	// ErrInsufficientScope: the server still refuses for lack of scope
	// after the scopes it asked for were requested.
	ErrInsufficientScope = errors.New("oauth: the scopes the server needs were not granted")
	// ErrAuthorizationResponse: the authorization response failed
	// validation (its state or issuer) or carried an error.
	ErrAuthorizationResponse = errors.New("oauth: authorization response refused")
)

// Config describes the application to the authorization server and how
// the user is reached.
type Config struct {
	// ClientID is a client id registered beforehand with the
	// authorization server; when set it is used, and nothing is
	// registered.
	ClientID string
	// ClientSecret is ClientID's secret, for a confidential client.
	ClientSecret string
	// ClientMetadataURL is the HTTPS URL of the application's client ID
	// metadata document; it serves as the client id at authorization
	// servers that support such documents
	// (client_id_metadata_document_supported). The application hosts the
	// document; its redirect_uris must list RedirectURL.
	ClientMetadataURL string
	// ClientName names the application in a dynamic registration
	// (default "snodo-go MCP client").
	ClientName string
	// RedirectURL is the redirect URI: an http URL on a loopback address
	// (127.0.0.1, [::1] or localhost), where the flow listens during a
	// login. Port 0 picks a free port at each login. Default
	// [DefaultRedirectURL].
	RedirectURL string
	// OpenURL sends the user to authURL, the authorization request: it
	// opens a browser, or shows the URL. It may return at once; the flow
	// then waits for the redirect until its context ends. A login
	// without it fails with [ErrNoUser].
	OpenURL func(ctx context.Context, authURL string) error
	// Scopes are requested in every authorization, besides those the
	// server asks for.
	Scopes []string
	// Store keeps the tokens; nil keeps them in memory.
	Store TokenStore
	// HTTPClient makes the requests to the authorization server and for
	// metadata; nil uses http.DefaultClient. Bound each request with the
	// context.
	HTTPClient *http.Client
	// Now tells the time, for token expiry; nil uses time.Now.
	Now func() time.Time
}

// Flow implements [client.ChallengeHandler] for one MCP server.
type Flow struct {
	resource string // the server's URL, as given
	cfg      Config
	redirect *url.URL
	store    TokenStore

	login sync.Mutex // one login or refresh at a time

	mu      sync.Mutex
	loaded  bool
	token   *Token
	asked   []string            // every scope requested so far
	refused map[string]struct{} // scope sets a step-up already asked for in vain
	prm     *oauthmeta.ProtectedResource
	as      *oauthmeta.AuthorizationServer
	reg     map[string]*registration // by issuer, from dynamic registration
}

// New returns the flow for the MCP server at serverURL (the endpoint the
// HTTP transport posts to).
func New(serverURL string, cfg Config) (*Flow, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: server URL %q is not an absolute http(s) URL without a fragment", serverURL)
	}
	if cfg.RedirectURL == "" {
		cfg.RedirectURL = DefaultRedirectURL
	}
	redirect, err := loopbackRedirect(cfg.RedirectURL)
	if err != nil {
		return nil, err
	}
	if cfg.ClientMetadataURL != "" {
		m, err := url.Parse(cfg.ClientMetadataURL)
		if err != nil || m.Scheme != "https" || m.Host == "" || m.Path == "" || m.Path == "/" || m.Fragment != "" {
			return nil, fmt.Errorf("oauth: client metadata URL %q must be an https URL with a path", cfg.ClientMetadataURL)
		}
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "snodo-go MCP client"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	store := cfg.Store
	if store == nil {
		store = &memoryStore{}
	}
	return &Flow{resource: serverURL, cfg: cfg, redirect: redirect, store: store,
		refused: map[string]struct{}{}, reg: map[string]*registration{}}, nil
}

// Token implements [client.TokenSource]: the current access token,
// refreshed first when it expires within [RefreshMargin]. It returns ""
// (and no error) when there is none, or when a refresh failed: the
// server's refusal then starts a login.
func (f *Flow) Token(ctx context.Context) (string, error) {
	t, err := f.current(ctx)
	if err != nil || t == nil {
		return "", err
	}
	if !f.expiring(t) {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		return "", nil
	}
	f.login.Lock()
	defer f.login.Unlock()
	if t2, _ := f.current(ctx); t2 != nil && t2.AccessToken != t.AccessToken && !f.expiring(t2) {
		return t2.AccessToken, nil // renewed while this call waited
	}
	nt, err := f.refresh(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", nil
	}
	return nt.AccessToken, nil
}

func (f *Flow) expiring(t *Token) bool {
	return !t.Expiry.IsZero() && !f.cfg.Now().Add(RefreshMargin).Before(t.Expiry)
}

// current returns the token in use, loading it from the store once.
func (f *Flow) current(ctx context.Context) (*Token, error) {
	f.mu.Lock()
	loaded, t := f.loaded, f.token
	f.mu.Unlock()
	if loaded {
		return t, nil
	}
	t, err := f.store.Load(ctx, f.resource)
	if err != nil {
		return nil, fmt.Errorf("oauth: loading the token: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.loaded {
		f.loaded, f.token = true, t
		if t != nil {
			f.asked = union(f.asked, t.Scopes)
		}
	}
	return f.token, nil
}

// keep makes t the token in use and saves it.
func (f *Flow) keep(ctx context.Context, t *Token) error {
	f.mu.Lock()
	f.loaded, f.token = true, t
	f.mu.Unlock()
	if err := f.store.Save(ctx, f.resource, t); err != nil {
		return fmt.Errorf("oauth: saving the token: %w", err)
	}
	return nil
}

// HandleChallenge implements [client.ChallengeHandler]. A 401 is answered
// by a refresh when there is a refresh token, else by a login; a 403
// insufficient_scope by a login for more scopes. It returns nil once a
// token worth a retry is in place (also when another request renewed it
// meanwhile).
func (f *Flow) HandleChallenge(ctx context.Context, ch *client.AuthChallenge) error {
	if ch.URL != f.resource {
		return fmt.Errorf("oauth: a challenge from %s reached the flow for %s", ch.URL, f.resource)
	}
	bearer := oauthmeta.Bearer(ch.Header.Values("WWW-Authenticate"))
	params := map[string]string{}
	if bearer != nil {
		params = bearer.Params
	}
	f.login.Lock()
	defer f.login.Unlock()
	t, err := f.current(ctx)
	if err != nil {
		return err
	}
	if t != nil && t.AccessToken != ch.Token && !f.expiring(t) {
		return nil // renewed since the refused request was sent
	}
	challenged := splitScopes(params["scope"])
	switch ch.StatusCode {
	case http.StatusUnauthorized:
		if t != nil && t.RefreshToken != "" && ch.Token != "" {
			if _, err := f.refresh(ctx, t); err == nil {
				return nil
			} else if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return f.authorize(ctx, params["resource_metadata"], challenged, false)
	case http.StatusForbidden:
		if params["error"] != "insufficient_scope" {
			return fmt.Errorf("oauth: the server refused the token (HTTP 403, %s)", describe(params))
		}
		if t != nil && len(challenged) > 0 && subset(challenged, t.Scopes) {
			return fmt.Errorf("%w: the token has %q and the server still asks for %q", ErrInsufficientScope, joinScopes(t.Scopes), params["scope"])
		}
		return f.authorize(ctx, params["resource_metadata"], challenged, true)
	}
	return fmt.Errorf("oauth: unexpected HTTP %d challenge", ch.StatusCode)
}

// Login authorizes before any request is refused (an application that
// wants the user's consent up front, or more time for it than a request
// allows). It finds the metadata at the well-known locations and asks for
// the server's scopes_supported and Config.Scopes.
func (f *Flow) Login(ctx context.Context) error {
	f.login.Lock()
	defer f.login.Unlock()
	return f.authorize(ctx, "", nil, false)
}

// authorize runs the authorization code flow for the scopes the server
// asked for (none: what its metadata lists) plus those asked before and
// Config.Scopes. stepUp marks an insufficient_scope answer: a scope set
// already asked for in vain is not asked for again.
func (f *Flow) authorize(ctx context.Context, metadataURL string, challenged []string, stepUp bool) error {
	prm, as, err := f.discover(ctx, metadataURL)
	if err != nil {
		return err
	}
	f.mu.Lock()
	scopes := union(f.asked, challenged)
	if len(challenged) == 0 && !stepUp {
		scopes = union(scopes, prm.ScopesSupported)
	}
	scopes = union(scopes, f.cfg.Scopes)
	key := joinScopes(sortedCopy(scopes))
	_, refused := f.refused[key]
	f.mu.Unlock()
	if stepUp && refused {
		return fmt.Errorf("%w: %q was asked for already", ErrInsufficientScope, joinScopes(scopes))
	}
	t, err := f.authorizationCode(ctx, prm, as, scopes)
	if err != nil {
		if stepUp && errors.Is(err, ErrAuthorizationResponse) {
			f.mu.Lock()
			f.refused[key] = struct{}{}
			f.mu.Unlock()
			return fmt.Errorf("%w: %w", ErrInsufficientScope, err)
		}
		return err
	}
	f.mu.Lock()
	f.asked = scopes
	if stepUp && !subset(challenged, t.Scopes) {
		f.refused[key] = struct{}{}
	}
	f.mu.Unlock()
	if err := f.keep(ctx, t); err != nil {
		return err
	}
	if stepUp && !subset(challenged, t.Scopes) {
		return fmt.Errorf("%w: asked for %q, granted %q", ErrInsufficientScope, joinScopes(scopes), joinScopes(t.Scopes))
	}
	return nil
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// describe renders a challenge's error for an error message.
func describe(params map[string]string) string {
	var parts []string
	for _, k := range []string{"error", "error_description"} {
		if v := params[k]; v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "no error given"
	}
	return strings.Join(parts, ", ")
}
