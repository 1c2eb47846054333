package oauth_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	clientoauth "github.com/snodo-go/snodo/client/oauth"
	"github.com/snodo-go/snodo/internal/authserver"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
)

const (
	rsClient = "mcp-resource-server"
	rsSecret = "a-long-enough-secret-for-the-resource-server"
)

var allScopes = []string{"files:read", "files:write", "files:admin", "prompts:use"}

// startAS starts the authorization server for one test, with the
// resource server's introspection client and every scope the test server
// uses.
func startAS(t *testing.T, cfg authserver.Config) *authserver.Server {
	t.Helper()
	cfg.Introspection = &authserver.ClientCredentials{ID: rsClient, Secret: rsSecret}
	cfg.Scopes = allScopes
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

// protectedByAS starts the test server accepting the JWTs as issues for
// it, which live for ttl (0: the authorization server's 300 s).
func protectedByAS(t *testing.T, as *authserver.Server, ttl time.Duration) (*protected, *recordingVerifier) {
	t.Helper()
	rec := &recordingVerifier{}
	p := startProtected(t, false, func(resource string) oauth.Verifier {
		v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: as.Issuer, Audience: resource})
		if err != nil {
			t.Fatal(err)
		}
		rec.Verifier = v
		return rec
	}, []string{as.Issuer})
	if err := as.AddResource(context.Background(), authserver.Resource{URL: p.url, Scopes: allScopes, TTL: ttl}); err != nil {
		t.Fatal(err)
	}
	return p, rec
}

// recordingVerifier remembers the distinct tokens its Verifier accepted.
type recordingVerifier struct {
	oauth.Verifier
	mu   sync.Mutex
	seen []string
}

func (r *recordingVerifier) Verify(ctx context.Context, token string) (*oauth.Principal, error) {
	p, err := r.Verifier.Verify(ctx, token)
	if err == nil {
		r.mu.Lock()
		if !slices.Contains(r.seen, token) {
			r.seen = append(r.seen, token)
		}
		r.mu.Unlock()
	}
	return p, err
}

func (r *recordingVerifier) tokens() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// keptTokens is a TokenStore that remembers every access token, so that
// the test can look for them in the logs.
type keptTokens struct {
	mu     sync.Mutex
	tokens map[string]*clientoauth.Token
	all    []string
}

func (k *keptTokens) Load(_ context.Context, r string) (*clientoauth.Token, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.tokens[r], nil
}

func (k *keptTokens) Save(_ context.Context, r string, t *clientoauth.Token) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tokens == nil {
		k.tokens = map[string]*clientoauth.Token{}
	}
	c := *t
	k.tokens[r] = &c
	k.all = append(k.all, t.AccessToken, t.RefreshToken)
	return nil
}

func (k *keptTokens) secrets() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.all)
}

// user plays the browser for the logins the Go client asks of it, and
// keeps their authorization URLs.
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

// newFlow returns the Go client's OAuth flow for the server at url.
func newFlow(t *testing.T, url string, cfg clientoauth.Config) *clientoauth.Flow {
	t.Helper()
	flow, err := clientoauth.New(url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return flow
}

// goClient connects the Go client, which logs in through flow.
func goClient(t *testing.T, url string, flow *clientoauth.Flow) *client.Client {
	t.Helper()
	tr := &client.HTTPTransport{URL: url}
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

// call calls tool and returns the text of its one content block.
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

// callText is call for a tool that must succeed.
func callText(t *testing.T, c *client.Client, tool string) string {
	t.Helper()
	got, err := call(t, c, tool)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return got
}

// TestGoClientWithJWTs: the Go client logs in to the protected server
// through the real authorization server, whose JWTs the server verifies
// with the keys it discovers; a tool beyond the first grant gets the 403
// challenge and the client steps up. No token, subject or claim reaches
// a log or an instrumentation event.
func TestGoClientWithJWTs(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, _ := protectedByAS(t, as, 0)
	store := &keptTokens{}
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{Store: store, OpenURL: u.open}))
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tl := range tools {
		listed = append(listed, tl.Name)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, []string{"read", "whoami"}) {
		t.Fatalf("tools %v", listed)
	}
	if got := callText(t, c, "read"); got != "read" {
		t.Fatal(got)
	}
	if got := callText(t, c, "whoami"); !strings.HasPrefix(got, "alice ") || !strings.HasSuffix(got, " files:read") {
		t.Fatalf("whoami: %q", got)
	}
	if got := callText(t, c, "write"); got != "written" {
		t.Fatal(got)
	}
	if n := u.logins.Load(); n != 2 {
		t.Fatalf("%d logins, want 2 (the first and the step-up)", n)
	}
	noSecrets(t, p, append(store.secrets(), "alice"))
}

// TestGoClientWithOpaqueTokens: opaque tokens checked by introspection,
// each introspected once while it is cached.
func TestGoClientWithOpaqueTokens(t *testing.T) {
	as := startAS(t, authserver.Config{})
	var introspections atomic.Int32
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.URL.Path, "/introspection") {
			introspections.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	p := startProtected(t, true, func(resource string) oauth.Verifier {
		v, err := oauth.NewIntrospector(oauth.IntrospectionConfig{Issuer: as.Issuer, ClientID: rsClient, ClientSecret: rsSecret,
			Audience: resource, HTTPClient: counting})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, []string{as.Issuer})
	if err := as.AddResource(context.Background(), authserver.Resource{URL: p.url, Scopes: allScopes, Opaque: true}); err != nil {
		t.Fatal(err)
	}
	store := &keptTokens{}
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{Store: store, OpenURL: u.open}))
	for range 3 {
		if got := callText(t, c, "read"); got != "read" {
			t.Fatal(got)
		}
	}
	if n := introspections.Load(); n != 1 {
		t.Fatalf("%d introspections for one token", n)
	}
	if tok := store.secrets()[0]; strings.Count(tok, ".") == 2 {
		t.Fatal("the token is a JWT, not opaque")
	}
	if got := callText(t, c, "write"); got != "written" {
		t.Fatal(got)
	}
	if n := introspections.Load(); n != 2 {
		t.Fatalf("%d introspections for two tokens", n)
	}
	noSecrets(t, p, append(store.secrets(), "alice"))
}

// TestTypeScriptClientLogsIn: the official TypeScript client, with its
// own OAuth implementation, logs in to the protected server through the
// same authorization server and calls a tool.
func TestTypeScriptClientLogsIn(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, _ := protectedByAS(t, as, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := authserver.TSClient(ctx, p.url, "whoami")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(res.Tools)
	if res.Logins != 1 || !slices.Equal(res.Tools, []string{"read", "whoami"}) || res.IsError ||
		len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, "alice ") || !strings.HasSuffix(res.Content[0].Text, " files:read") {
		t.Fatalf("%+v", res)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
