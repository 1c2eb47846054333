package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/oauth"
)

// introspectionStandIn answers introspection with what answer returns for
// the token; the real authorization server never omits aud, names another
// issuer, or fails, so these come from a stand-in.
type introspectionStandIn struct {
	srv    *httptest.Server
	calls  atomic.Int32
	answer func(token string) (int, map[string]any)
}

func newIntrospectionStandIn(t *testing.T, answer func(string) (int, map[string]any)) *introspectionStandIn {
	s := &introspectionStandIn{answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != rsClient || p != rsSecret {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		s.calls.Add(1)
		status, body := s.answer(r.PostFormValue("token"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

const testResource = "https://mcp.example.com/mcp"

func (s *introspectionStandIn) verifier(t *testing.T, clk *clock, edit func(*oauth.IntrospectionConfig)) *oauth.Introspector {
	t.Helper()
	cfg := oauth.IntrospectionConfig{Issuer: "https://as.example", Endpoint: s.srv.URL, ClientID: rsClient, ClientSecret: rsSecret,
		Audience: testResource, Now: clk.Now}
	if edit != nil {
		edit(&cfg)
	}
	v, err := oauth.NewIntrospector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func activeAnswer(clk *clock, ttl time.Duration) map[string]any {
	return map[string]any{"active": true, "sub": subject, "client_id": clientID, "scope": "files:read",
		"aud": []string{testResource}, "iss": "https://as.example", "exp": clk.Now().Add(ttl).Unix()}
}

func TestIntrospectionRefusals(t *testing.T) {
	clk := newClock()
	for _, c := range []struct {
		name   string
		status int
		body   map[string]any
		want   error
	}{
		{"inactive", 200, map[string]any{"active": false}, oauth.ErrInactive},
		{"no audience", 200, func() map[string]any { a := activeAnswer(clk, time.Minute); delete(a, "aud"); return a }(), oauth.ErrAudience},
		{"another audience", 200, func() map[string]any {
			a := activeAnswer(clk, time.Minute)
			a["aud"] = "https://other.example"
			return a
		}(), oauth.ErrAudience},
		{"another issuer", 200, func() map[string]any {
			a := activeAnswer(clk, time.Minute)
			a["iss"] = "https://evil.example"
			return a
		}(), oauth.ErrIssuer},
		{"expired", 200, activeAnswer(clk, -time.Second), oauth.ErrExpired},
		{"server error", 500, map[string]any{}, oauth.ErrUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newIntrospectionStandIn(t, func(string) (int, map[string]any) { return c.status, c.body })
			_, err := s.verifier(t, clk, nil).Verify(context.Background(), "opaque-token")
			if !errors.Is(err, c.want) || errors.Is(c.want, oauth.ErrInvalidToken) != errors.Is(err, oauth.ErrInvalidToken) {
				t.Fatalf("%v, want %v", err, c.want)
			}
		})
	}
}

// TestIntrospectionCache: an active answer is reused until the token's
// exp or MaxTTL, whichever comes first; inactive answers are not kept;
// the cache holds CacheSize answers.
func TestIntrospectionCache(t *testing.T) {
	clk := newClock()
	active := map[string]bool{"t1": true, "t2": true, "t3": true, "short": true}
	s := newIntrospectionStandIn(t, func(tok string) (int, map[string]any) {
		if !active[tok] {
			return 200, map[string]any{"active": false}
		}
		ttl := time.Hour
		if tok == "short" {
			ttl = 30 * time.Second
		}
		return 200, activeAnswer(clk, ttl)
	})
	v := s.verifier(t, clk, func(c *oauth.IntrospectionConfig) { c.CacheSize = 2; c.MaxTTL = time.Minute })
	verify := func(tok string) error {
		p, err := v.Verify(context.Background(), tok)
		if err == nil && (p.Subject != subject || p.ClientID != clientID || !p.HasScope("files:read")) {
			return fmt.Errorf("principal %+v", p)
		}
		return err
	}
	for range 3 {
		if err := verify("t1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.calls.Load(); n != 1 {
		t.Fatalf("%d introspections of one token", n)
	}
	clk.advance(time.Minute) // MaxTTL
	_ = verify("t1")
	if n := s.calls.Load(); n != 2 {
		t.Fatalf("%d introspections after MaxTTL", n)
	}
	_ = verify("short")
	clk.advance(31 * time.Second) // past short's exp, within MaxTTL
	_ = verify("short")
	if n := s.calls.Load(); n != 4 {
		t.Fatalf("%d introspections after the token's exp", n)
	}
	_ = verify("nope")
	_ = verify("nope")
	if n := s.calls.Load(); n != 6 {
		t.Fatalf("an inactive answer was cached (%d introspections)", n)
	}
	// Size 2: t2 and t3 push t1 and short out.
	_ = verify("t2")
	_ = verify("t3")
	before := s.calls.Load()
	_ = verify("t3")
	_ = verify("t2")
	if s.calls.Load() != before {
		t.Fatal("recent answers were not kept")
	}
	_ = verify("t1")
	if s.calls.Load() != before+1 {
		t.Fatal("the cache grew beyond its size")
	}
}

func TestIntrospectionConfigIsChecked(t *testing.T) {
	for _, c := range []oauth.IntrospectionConfig{
		{ClientID: "a", ClientSecret: "b", Audience: testResource},
		{Issuer: "https://as.example", ClientSecret: "b", Audience: testResource},
		{Issuer: "https://as.example", ClientID: "a", ClientSecret: "b"},
	} {
		if _, err := oauth.NewIntrospector(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
