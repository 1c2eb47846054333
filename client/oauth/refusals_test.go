package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/client/oauth"
)

// What the real authorization server never does is played by a stand-in
// here: one that misbehaves in the way each test names. The protected
// resource is a stand-in too (it only answers 401 and its metadata).

type standIn struct {
	as, rs      *httptest.Server
	issuer      string
	metadata    map[string]any // the authorization server's, edited by tests
	resource    string         // what the resource metadata claims to describe
	iss         func(issuer string) (string, bool)
	tokenCalls  atomic.Int32
	challenge   string // the 401's WWW-Authenticate
	wellKnownOK bool
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{iss: func(issuer string) (string, bool) { return issuer, true }, wellKnownOK: true}
	s.as = httptest.NewServer(http.HandlerFunc(s.serveAS))
	t.Cleanup(s.as.Close)
	s.issuer = s.as.URL
	s.metadata = map[string]any{
		"issuer": s.issuer, "authorization_endpoint": s.issuer + "/authorize", "token_endpoint": s.issuer + "/token",
		"registration_endpoint": s.issuer + "/register", "code_challenge_methods_supported": []string{"S256"},
		"authorization_response_iss_parameter_supported": true,
	}
	s.rs = httptest.NewServer(http.HandlerFunc(s.serveRS))
	t.Cleanup(s.rs.Close)
	s.resource = s.rs.URL + "/mcp"
	return s
}

func (s *standIn) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.metadata)
	case "/register":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"client_id":"registered","token_endpoint_auth_method":"none"}`))
	case "/authorize":
		q := r.URL.Query()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {"the-code"}, "state": {q.Get("state")}}
		if iss, ok := s.iss(s.issuer); ok {
			v.Set("iss", iss)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case "/token":
		s.tokenCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"stand-in-token","token_type":"Bearer","expires_in":300}`))
	default:
		http.NotFound(w, r)
	}
}

func (s *standIn) serveRS(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && s.wellKnownOK {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": s.resource, "authorization_servers": []string{s.issuer}})
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if s.challenge != "" {
		w.Header().Set("WWW-Authenticate", s.challenge)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

func (s *standIn) url() string { return s.rs.URL + "/mcp" }

// login runs one challenge through a flow, as the transport would.
func (s *standIn) login(t *testing.T, cfg oauth.Config) error {
	t.Helper()
	if cfg.OpenURL == nil {
		cfg.OpenURL = browse
	}
	flow, err := oauth.New(s.url(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	if s.challenge != "" {
		h.Set("WWW-Authenticate", s.challenge)
	}
	return flow.HandleChallenge(ctx, &client.AuthChallenge{URL: s.url(), StatusCode: http.StatusUnauthorized, Header: h})
}

// browse follows the redirects to the loopback redirect URI.
func browse(ctx context.Context, authURL string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func TestWellKnownMetadataWhenTheChallengeNamesNone(t *testing.T) {
	s := newStandIn(t)
	if err := s.login(t, oauth.Config{}); err != nil || s.tokenCalls.Load() != 1 {
		t.Fatalf("%v, %d token calls", err, s.tokenCalls.Load())
	}
	s.wellKnownOK = false
	if err := s.login(t, oauth.Config{}); err == nil || !strings.Contains(err.Error(), "no protected resource metadata") {
		t.Fatalf("without any metadata: %v", err)
	}
}

func TestResourceMetadataForAnotherResourceIsRefused(t *testing.T) {
	s := newStandIn(t)
	s.resource = "https://elsewhere.example/mcp"
	if err := s.login(t, oauth.Config{}); err == nil || !strings.Contains(err.Error(), "elsewhere.example") || s.tokenCalls.Load() != 0 {
		t.Fatalf("%v", err)
	}
}

func TestAuthorizationServerWithoutS256IsRefused(t *testing.T) {
	s := newStandIn(t)
	s.metadata["code_challenge_methods_supported"] = []string{"plain"}
	var opened atomic.Bool
	err := s.login(t, oauth.Config{OpenURL: func(context.Context, string) error { opened.Store(true); return nil }})
	if !errors.Is(err, oauth.ErrNoPKCE) || opened.Load() {
		t.Fatalf("%v (user sent: %v)", err, opened.Load())
	}
	delete(s.metadata, "code_challenge_methods_supported")
	if err := s.login(t, oauth.Config{}); !errors.Is(err, oauth.ErrNoPKCE) {
		t.Fatalf("without code_challenge_methods_supported: %v", err)
	}
}

func TestMetadataNamingAnotherIssuerIsRefused(t *testing.T) {
	s := newStandIn(t)
	s.metadata["issuer"] = "https://honest.example"
	if err := s.login(t, oauth.Config{}); err == nil || !strings.Contains(err.Error(), "honest.example") {
		t.Fatalf("%v", err)
	}
}

// TestIssuerOfTheResponseIsChecked follows RFC 9207 §2.4 as the MCP
// specification's table applies it; a refused response's code is never
// sent to the token endpoint.
func TestIssuerOfTheResponseIsChecked(t *testing.T) {
	for _, c := range []struct {
		name       string
		advertised bool
		iss        func(string) (string, bool)
		ok         bool
	}{
		{"advertised, matching", true, func(i string) (string, bool) { return i, true }, true},
		{"advertised, absent", true, func(string) (string, bool) { return "", false }, false},
		{"advertised, another", true, func(string) (string, bool) { return "https://attacker.example", true }, false},
		{"not advertised, another", false, func(string) (string, bool) { return "https://attacker.example", true }, false},
		{"not advertised, trailing slash", false, func(i string) (string, bool) { return i + "/", true }, false},
		{"not advertised, absent", false, func(string) (string, bool) { return "", false }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStandIn(t)
			s.metadata["authorization_response_iss_parameter_supported"] = c.advertised
			s.iss = c.iss
			err := s.login(t, oauth.Config{})
			if c.ok != (err == nil) || !c.ok && (!errors.Is(err, oauth.ErrAuthorizationResponse) || s.tokenCalls.Load() != 0) {
				t.Fatalf("%v, %d token calls", err, s.tokenCalls.Load())
			}
		})
	}
}

// TestAResponseWithAnotherStateIsIgnored: a request to the redirect
// listener that does not carry the login's state is refused, and the
// flow goes on waiting for the real one.
func TestAResponseWithAnotherStateIsIgnored(t *testing.T) {
	s := newStandIn(t)
	var forged int
	err := s.login(t, oauth.Config{OpenURL: func(ctx context.Context, authURL string) error {
		u, _ := url.Parse(authURL)
		back, _ := url.Parse(u.Query().Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {"forged"}, "state": {"guessed"}, "iss": {s.issuer}}.Encode()
		resp, err := http.Get(back.String())
		if err != nil {
			return err
		}
		resp.Body.Close()
		forged = resp.StatusCode
		return browse(ctx, authURL)
	}})
	if err != nil || forged != http.StatusBadRequest || s.tokenCalls.Load() != 1 {
		t.Fatalf("%v, forged answered %d, %d token calls", err, forged, s.tokenCalls.Load())
	}
}

func TestLoginNeedsAUser(t *testing.T) {
	s := newStandIn(t)
	flow, err := oauth.New(s.url(), oauth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = flow.HandleChallenge(context.Background(), &client.AuthChallenge{URL: s.url(), StatusCode: http.StatusUnauthorized, Header: http.Header{}})
	if !errors.Is(err, oauth.ErrNoUser) {
		t.Fatalf("%v", err)
	}
}

func TestNoRegistrationPossible(t *testing.T) {
	s := newStandIn(t)
	delete(s.metadata, "registration_endpoint")
	if err := s.login(t, oauth.Config{}); !errors.Is(err, oauth.ErrNoRegistration) {
		t.Fatalf("%v", err)
	}
	// A client ID metadata document the server does not support is not
	// used either.
	if err := s.login(t, oauth.Config{ClientMetadataURL: "https://app.example/client.json"}); !errors.Is(err, oauth.ErrNoRegistration) {
		t.Fatalf("%v", err)
	}
}

func TestConfigIsChecked(t *testing.T) {
	for _, c := range []struct {
		server string
		cfg    oauth.Config
	}{
		{"mcp.example/mcp", oauth.Config{}},
		{"https://mcp.example/mcp#f", oauth.Config{}},
		{"https://mcp.example/mcp", oauth.Config{RedirectURL: "http://example.com/callback"}},
		{"https://mcp.example/mcp", oauth.Config{RedirectURL: "https://127.0.0.1/callback"}},
		{"https://mcp.example/mcp", oauth.Config{ClientMetadataURL: "http://app.example/client.json"}},
		{"https://mcp.example/mcp", oauth.Config{ClientMetadataURL: "https://app.example"}},
	} {
		if _, err := oauth.New(c.server, c.cfg); err == nil {
			t.Errorf("%s %+v accepted", c.server, c.cfg)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:0/callback", "http://[::1]:8123/cb", "http://localhost/cb"} {
		if _, err := oauth.New("https://mcp.example/mcp", oauth.Config{RedirectURL: ok}); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
}
