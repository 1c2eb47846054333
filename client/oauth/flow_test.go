package oauth_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/client/oauth"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/authserver"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

const (
	rsClient = "mcp-resource-server"
	rsSecret = "a-long-enough-secret-for-the-resource-server"
)

// toolScopes is what the protected test server asks of a token per tool.
var toolScopes = map[string]string{"echo": "mcp:read", "write": "mcp:write", "admin": "mcp:admin"}

// startAS starts the authorization server for one test.
func startAS(t *testing.T, cfg authserver.Config) *authserver.Server {
	t.Helper()
	cfg.Introspection = &authserver.ClientCredentials{ID: rsClient, Secret: rsSecret}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	as, err := authserver.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := as.Close(); err != nil {
			t.Errorf("authorization server: %v\n%s", err, as.Log())
		}
	})
	return as
}

// protected is an MCP server that accepts the tokens the authorization
// server says are active and meant for it (RFC 7662 introspection, no
// cache), with per-tool scopes, and serves its protected resource
// metadata.
type protected struct {
	url, metadataURL string
	as               *authserver.Server
	ttl              time.Duration

	mu     sync.Mutex
	tokens []string // the distinct access tokens seen, in order
}

func startProtected(t *testing.T, as *authserver.Server, ttl time.Duration) *protected {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "protected", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, text("read")),
		dispatch.WithTool(mcp.Tool{Name: "write"}, text("written")),
		dispatch.WithTool(mcp.Tool{Name: "admin"}, text("administered")),
	)
	if err != nil {
		t.Fatal(err)
	}
	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	p := &protected{as: as, ttl: ttl}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.gate(h))
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"resource": p.url, "authorization_servers": []string{as.Issuer}, "scopes_supported": []string{"mcp:read"},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.url = srv.URL + "/mcp"
	p.metadataURL = srv.URL + "/.well-known/oauth-protected-resource/mcp"
	if err := as.AddResource(context.Background(), authserver.Resource{URL: p.url, Scopes: []string{"mcp:read", "mcp:write", "mcp:admin"}, TTL: ttl, Opaque: true}); err != nil {
		t.Fatal(err)
	}
	return p
}

func text(s string) dispatch.ToolHandler {
	return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult(s), nil
	}
}

func (p *protected) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, p.metadataURL))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		info, err := p.introspect(r.Context(), tok)
		if err != nil || !info.Active || !slices.Contains(info.audiences(), p.url) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", resource_metadata=%q`, p.metadataURL))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		p.mu.Lock()
		if !slices.Contains(p.tokens, tok) {
			p.tokens = append(p.tokens, tok)
		}
		p.mu.Unlock()
		if need := toolScopes[r.Header.Get("Mcp-Name")]; need != "" && !slices.Contains(strings.Fields(info.Scope), need) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, p.metadataURL))
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type introspection struct {
	Active bool            `json:"active"`
	Scope  string          `json:"scope"`
	Aud    json.RawMessage `json:"aud"`
}

func (i *introspection) audiences() []string {
	var one string
	if json.Unmarshal(i.Aud, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(i.Aud, &many)
	return many
}

func (p *protected) introspect(ctx context.Context, tok string) (*introspection, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.as.Issuer+"/token/introspection",
		strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(rsClient, rsSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var info introspection
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return nil, err
	}
	return &info, nil
}

func (p *protected) seenTokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.tokens)
}

// user counts the logins and plays the browser for them.
type user struct {
	logins atomic.Int32
	urls   chan string
}

func newUser() *user { return &user{urls: make(chan string, 16)} }

func (u *user) open(ctx context.Context, authURL string) error {
	u.logins.Add(1)
	u.urls <- authURL
	return authserver.Browser(ctx, authURL)
}

func connect(t *testing.T, url string, flow *oauth.Flow) *client.Client {
	t.Helper()
	tr := client.HTTP(url)
	tr.TokenSource = flow
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func call(t *testing.T, c *client.Client, tool string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, tool, nil)
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %+v", tool, res)
	}
	return mcp.TextOf(res.Content), nil
}

// TestLoginWithDynamicRegistrationThenStepUp is the whole flow against
// the real authorization server: the first request's 401 leads to a
// dynamic registration and a login for the scopes the metadata lists; a
// tool that needs more gets 403 insufficient_scope, and a second login
// asks for the union; the tokens are for this server (its audience).
func TestLoginWithDynamicRegistrationThenStepUp(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p := startProtected(t, as, 0)
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.url, flow)
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins before the step-up, want 1", n)
	}
	first := <-u.urls
	q := mustQuery(t, first)
	if q.Get("resource") != p.url || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("scope") != "mcp:read" || q.Get("state") == "" || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Fatalf("first authorization request %s", first)
	}
	if got, err := call(t, c, "write"); err != nil || got != "written" {
		t.Fatalf("write after the step-up: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 2 {
		t.Fatalf("%d logins, want 2", n)
	}
	second := mustQuery(t, <-u.urls)
	if second.Get("scope") != "mcp:read mcp:write" || second.Get("client_id") != q.Get("client_id") {
		t.Fatalf("step-up request: scope %q, client %q (first %q)", second.Get("scope"), second.Get("client_id"), q.Get("client_id"))
	}
	// Both tools keep working with the one token; no more logins.
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo after the step-up: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 2 || len(p.seenTokens()) != 2 {
		t.Fatalf("%d logins, %d tokens", n, len(p.seenTokens()))
	}
}

// TestStepUpTheUserRefusesIsNotAskedAgain: when the login for more scopes
// does not grant them, the call fails with ErrInsufficientScope, and the
// next call for the same scopes fails without sending the user again.
func TestStepUpTheUserRefusesIsNotAskedAgain(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p := startProtected(t, as, 0)
	if err := as.Deny(context.Background(), "mcp:admin"); err != nil {
		t.Fatal(err)
	}
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.url, flow)
	if _, err := call(t, c, "admin"); !errors.Is(err, oauth.ErrInsufficientScope) || !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("admin without the grant: %v", err)
	}
	n := u.logins.Load()
	if _, err := call(t, c, "admin"); !errors.Is(err, oauth.ErrInsufficientScope) {
		t.Fatalf("admin again: %v", err)
	}
	if u.logins.Load() != n {
		t.Fatal("the user was sent to grant the refused scope again")
	}
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo still works: %q %v", got, err)
	}
}

// TestTokenIsRefreshedBeforeItExpires: a token that expires within the
// refresh margin is renewed with the refresh token, without the user.
func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p := startProtected(t, as, 5*time.Second) // shorter than oauth.RefreshMargin
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.url, flow)
	for range 3 {
		if got, err := call(t, c, "echo"); err != nil || got != "read" {
			t.Fatalf("echo: %q %v", got, err)
		}
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins, want 1", n)
	}
	if n := len(p.seenTokens()); n < 4 {
		t.Fatalf("%d distinct tokens for the negotiation and 3 calls: not refreshed", n)
	}
}

// TestPreRegisteredClientIsUsedAsIs: a configured client id is sent, and
// nothing is registered.
func TestPreRegisteredClientIsUsedAsIs(t *testing.T) {
	as := startAS(t, authserver.Config{Public: &authserver.PublicClient{ID: "preregistered-app", RedirectURIs: []string{"http://127.0.0.1/callback"}}})
	p := startProtected(t, as, 0)
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{ClientID: "preregistered-app", OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.url, flow)
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if q := mustQuery(t, <-u.urls); q.Get("client_id") != "preregistered-app" {
		t.Fatalf("client_id %q", q.Get("client_id"))
	}
}

// TestClientIDMetadataDocument: where the server supports them, the
// document's URL is the client id; the server fetches the document (over
// HTTPS) and checks the redirect URI against it.
func TestClientIDMetadataDocument(t *testing.T) {
	var fetched atomic.Int32
	var doc *httptest.Server
	doc = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id": doc.URL + "/client.json", "client_name": "metadata document client",
			"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code", "refresh_token"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none", "application_type": "native",
		})
	}))
	t.Cleanup(doc.Close)
	as := startAS(t, authserver.Config{TrustedCertFile: writeCert(t, doc)})
	p := startProtected(t, as, 0)
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{ClientMetadataURL: doc.URL + "/client.json", OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.url, flow)
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if q := mustQuery(t, <-u.urls); q.Get("client_id") != doc.URL+"/client.json" || fetched.Load() == 0 {
		t.Fatalf("client_id %q, document fetched %d times", q.Get("client_id"), fetched.Load())
	}
}

func mustQuery(t *testing.T, s string) url.Values {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// writeCert saves the TLS server's certificate as PEM for the
// authorization server to trust.
func writeCert(t *testing.T, s *httptest.Server) string {
	t.Helper()
	path := t.TempDir() + "/cert.pem"
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoginBeforeConnecting: Login authorizes up front, from the
// well-known metadata, and the requests that follow need no other login.
func TestLoginBeforeConnecting(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p := startProtected(t, as, 0)
	u := newUser()
	flow, err := oauth.New(p.url, oauth.Config{OpenURL: u.open})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := flow.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if tok, err := flow.Token(ctx); err != nil || tok == "" {
		t.Fatalf("token %q %v", tok, err)
	}
	c := connect(t, p.url, flow)
	if got, err := call(t, c, "echo"); err != nil || got != "read" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins, want 1", n)
	}
}
