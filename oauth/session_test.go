package oauth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// TestRefreshedTokenKeepsItsSession: an initialize-era session bound to
// its principal (SessionConfig.BindPrincipal) answers the same subject's
// next token, a new *Principal with other claims, as a refreshed token
// is; another subject's token gets 404, as for an unknown session.
func TestRefreshedTokenKeepsItsSession(t *testing.T) {
	is := newIssuer(t)
	key := is.addKey(t, jose.RS256, "key-1")
	rt, err := dispatch.New(mcp.Implementation{Name: "sessions", Version: "1.0.0"}, dispatch.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := streamablehttp.NewHandler(rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{BindPrincipal: true}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().String() + "/mcp"
	v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: is.url, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := oauth.NewMiddleware(oauth.ResourceMetadata{Resource: resource, AuthorizationServers: []string{is.url}}, v)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = mw.Wrap(h)
	srv.Start()
	t.Cleanup(srv.Close)

	now := time.Now()
	tokenFor := func(sub string, issued time.Time) string {
		c := is.claims(resource, issued, "")
		c["sub"] = sub
		return mint(t, key, c)
	}
	var bearer atomic.Value
	bearer.Store(tokenFor(subject, now))
	s := &testfixture.HTTPSession{URL: resource, Version: mcp.Version20251125, Client: &http.Client{
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+bearer.Load().(string))
			return http.DefaultTransport.RoundTrip(r)
		}),
	}}
	s.Init = s.Post(t, testfixture.Initialize(0, s.Version, nil), func(r *http.Request) { r.Header.Del("Mcp-Protocol-Version") })
	if s.ID = s.Init.Header.Get(mcp.HeaderSessionID); s.ID == "" {
		t.Fatalf("no session: %d %s", s.Init.Status, s.Init.Body)
	}
	ping := func(tok string) int {
		t.Helper()
		bearer.Store(tok)
		return s.Post(t, testfixture.LegacyRequest(1, "ping", nil), nil).Status
	}
	for _, c := range []struct {
		name, token string
		want        int
	}{
		{"the first token", tokenFor(subject, now), http.StatusOK},
		{"the refreshed token", tokenFor(subject, now.Add(time.Second)), http.StatusOK},
		{"another subject's token", tokenFor("someone-else", now), http.StatusNotFound},
		{"the refreshed token again", tokenFor(subject, now.Add(2*time.Second)), http.StatusOK},
	} {
		if got := ping(c.token); got != c.want {
			t.Fatalf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, resource, nil)
	req.Header.Set(mcp.HeaderSessionID, s.ID)
	bearer.Store(tokenFor(subject, now.Add(3*time.Second)))
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE with the refreshed token: %d", resp.StatusCode)
	}
}

// TestPrincipalID: a principal's identity is its issuer and subject (or
// client, without a subject); without either, none.
func TestPrincipalID(t *testing.T) {
	alice := &oauth.Principal{Issuer: "https://as.example", Subject: "alice", ClientID: "app", Scopes: []string{"a"}}
	refreshed := &oauth.Principal{Issuer: "https://as.example", Subject: "alice", ClientID: "app", Scopes: []string{"a", "b"}, Claims: map[string]any{"jti": "2"}}
	for _, c := range []struct {
		name string
		a, b *oauth.Principal
		same bool
	}{
		{"a refreshed token", alice, refreshed, true},
		{"another subject", alice, &oauth.Principal{Issuer: "https://as.example", Subject: "bob", ClientID: "app"}, false},
		{"another issuer", alice, &oauth.Principal{Issuer: "https://other.example", Subject: "alice", ClientID: "app"}, false},
		{"a client's token", &oauth.Principal{Issuer: "https://as.example", ClientID: "app"}, &oauth.Principal{Issuer: "https://as.example", ClientID: "app"}, true},
		{"a client is no subject", &oauth.Principal{Issuer: "https://as.example", ClientID: "alice"}, &oauth.Principal{Issuer: "https://as.example", Subject: "alice"}, false},
	} {
		if got := c.a.PrincipalID() == c.b.PrincipalID(); got != c.same || c.a.PrincipalID() == "" {
			t.Errorf("%s: %q vs %q", c.name, c.a.PrincipalID(), c.b.PrincipalID())
		}
	}
	for _, none := range []*oauth.Principal{nil, {Issuer: "https://as.example"}, {Subject: "alice"}} {
		if id := none.PrincipalID(); id != "" {
			t.Errorf("%+v: identity %q", none, id)
		}
	}
}
