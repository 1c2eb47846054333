package oauth_test

// The Go client's OAuth flow (package client/oauth) against the real
// authorization server and this module's resource server: registration
// (dynamic, pre-registered, client ID metadata document), the
// authorization request, step-up, refusal and refresh. The client's
// refusals of a misbehaving server are tested in client/oauth, against
// in-process stand-ins.

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	clientoauth "github.com/snodo-go/snodo/client/oauth"
	"github.com/snodo-go/snodo/internal/authserver"
)

// TestLoginWithDynamicRegistrationThenStepUp is the whole flow: the
// first request's 401 leads to a dynamic registration and a login for
// the scopes the resource metadata lists; a tool that needs more gets 403
// insufficient_scope, and a second login asks for the union; the tokens
// are for this server (its audience).
func TestLoginWithDynamicRegistrationThenStepUp(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, seen := protectedByAS(t, as, 0)
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{OpenURL: u.open}))
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins before the step-up, want 1", n)
	}
	first := <-u.urls
	q := mustQuery(t, first)
	if q.Get("resource") != p.url || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("scope") != "files:read" || q.Get("state") == "" || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Fatalf("first authorization request %s", first)
	}
	if got, err := call(t, c, "write"); err != nil || got != "written" {
		t.Fatalf("write after the step-up: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 2 {
		t.Fatalf("%d logins, want 2", n)
	}
	second := mustQuery(t, <-u.urls)
	if second.Get("scope") != "files:read files:write" || second.Get("client_id") != q.Get("client_id") {
		t.Fatalf("step-up request: scope %q, client %q (first %q)", second.Get("scope"), second.Get("client_id"), q.Get("client_id"))
	}
	// Both tools keep working with the one token; no more logins.
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read after the step-up: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 2 || len(seen.tokens()) != 2 {
		t.Fatalf("%d logins, %d tokens", n, len(seen.tokens()))
	}
}

// TestStepUpTheUserRefusesIsNotAskedAgain: when the login for more scopes
// does not grant them, the call fails with ErrInsufficientScope, and the
// next call for the same scopes fails without sending the user again.
func TestStepUpTheUserRefusesIsNotAskedAgain(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, _ := protectedByAS(t, as, 0)
	if err := as.Deny(context.Background(), "files:write"); err != nil {
		t.Fatal(err)
	}
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{OpenURL: u.open}))
	if _, err := call(t, c, "write"); !errors.Is(err, clientoauth.ErrInsufficientScope) || !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("write without the grant: %v", err)
	}
	n := u.logins.Load()
	if _, err := call(t, c, "write"); !errors.Is(err, clientoauth.ErrInsufficientScope) {
		t.Fatalf("write again: %v", err)
	}
	if u.logins.Load() != n {
		t.Fatal("the user was sent to grant the refused scope again")
	}
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read still works: %q %v", got, err)
	}
}

// TestTokenIsRefreshedBeforeItExpires: a token that expires within the
// refresh margin is renewed with the refresh token, without the user.
func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, seen := protectedByAS(t, as, 5*time.Second) // shorter than clientoauth.RefreshMargin
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{OpenURL: u.open}))
	for range 3 {
		if got, err := call(t, c, "read"); err != nil || got != "read" {
			t.Fatalf("read: %q %v", got, err)
		}
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins, want 1", n)
	}
	if n := len(seen.tokens()); n < 4 {
		t.Fatalf("%d distinct tokens for the negotiation and 3 calls: not refreshed", n)
	}
}

// TestPreRegisteredClientIsUsedAsIs: a configured client id is sent, and
// nothing is registered.
func TestPreRegisteredClientIsUsedAsIs(t *testing.T) {
	as := startAS(t, authserver.Config{Public: &authserver.PublicClient{ID: "preregistered-app", RedirectURIs: []string{"http://127.0.0.1/callback"}}})
	p, _ := protectedByAS(t, as, 0)
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{ClientID: "preregistered-app", OpenURL: u.open}))
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read: %q %v", got, err)
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
	p, _ := protectedByAS(t, as, 0)
	u := newUser()
	c := goClient(t, p.url, newFlow(t, p.url, clientoauth.Config{ClientMetadataURL: doc.URL + "/client.json", OpenURL: u.open}))
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read: %q %v", got, err)
	}
	if q := mustQuery(t, <-u.urls); q.Get("client_id") != doc.URL+"/client.json" || fetched.Load() == 0 {
		t.Fatalf("client_id %q, document fetched %d times", q.Get("client_id"), fetched.Load())
	}
}

// TestLoginBeforeConnecting: Login authorizes up front, from the
// well-known metadata, and the requests that follow need no other login.
func TestLoginBeforeConnecting(t *testing.T) {
	as := startAS(t, authserver.Config{})
	p, _ := protectedByAS(t, as, 0)
	u := newUser()
	flow := newFlow(t, p.url, clientoauth.Config{OpenURL: u.open})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := flow.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if tok, err := flow.Token(ctx); err != nil || tok == "" {
		t.Fatalf("token %q %v", tok, err)
	}
	c := goClient(t, p.url, flow)
	if got, err := call(t, c, "read"); err != nil || got != "read" {
		t.Fatalf("read: %q %v", got, err)
	}
	if n := u.logins.Load(); n != 1 {
		t.Fatalf("%d logins, want 1", n)
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
