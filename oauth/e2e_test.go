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

func startAS(t *testing.T) *authserver.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	as, err := authserver.Start(ctx, authserver.Config{Introspection: &authserver.ClientCredentials{ID: rsClient, Secret: rsSecret}, Scopes: allScopes})
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

// goClient connects the Go client, which logs in through the flow.
func goClient(t *testing.T, url string, store clientoauth.TokenStore, logins *atomic.Int32) *client.Client {
	t.Helper()
	flow, err := clientoauth.New(url, clientoauth.Config{Store: store, OpenURL: func(ctx context.Context, u string) error {
		logins.Add(1)
		return authserver.Browser(ctx, u)
	}})
	if err != nil {
		t.Fatal(err)
	}
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

func callText(t *testing.T, c *client.Client, tool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, tool, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return mcp.TextOf(res.Content)
}

// TestGoClientWithJWTs: the Go client logs in to the protected server
// through the real authorization server, whose JWTs the server verifies
// with the keys it discovers; a tool beyond the first grant gets the 403
// challenge and the client steps up. No token, subject or claim reaches
// a log or an instrumentation event.
func TestGoClientWithJWTs(t *testing.T) {
	as := startAS(t)
	p := startProtected(t, false, func(resource string) oauth.Verifier {
		v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: as.Issuer, Audience: resource})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, []string{as.Issuer})
	if err := as.AddResource(context.Background(), authserver.Resource{URL: p.url, Scopes: allScopes}); err != nil {
		t.Fatal(err)
	}
	store := &keptTokens{}
	var logins atomic.Int32
	c := goClient(t, p.url, store, &logins)
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
	if n := logins.Load(); n != 2 {
		t.Fatalf("%d logins, want 2 (the first and the step-up)", n)
	}
	noSecrets(t, p, append(store.secrets(), "alice"))
}

// TestGoClientWithOpaqueTokens: opaque tokens checked by introspection,
// each introspected once while it is cached.
func TestGoClientWithOpaqueTokens(t *testing.T) {
	as := startAS(t)
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
	var logins atomic.Int32
	c := goClient(t, p.url, store, &logins)
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
	as := startAS(t)
	p := startProtected(t, false, func(resource string) oauth.Verifier {
		v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: as.Issuer, Audience: resource})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, []string{as.Issuer})
	if err := as.AddResource(context.Background(), authserver.Resource{URL: p.url, Scopes: allScopes}); err != nil {
		t.Fatal(err)
	}
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
