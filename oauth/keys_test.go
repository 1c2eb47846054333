package oauth_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/snodo-go/snodo/oauth"
)

func (s *jwtServer) callWith(t *testing.T, k signingKey) reply {
	t.Helper()
	return post(t, s.url, "Bearer "+mint(t, k, s.is.claims(s.url, s.clk.Now(), "files:read")), "tools/call", map[string]any{"name": "read"})
}

func wantOK(t *testing.T, r reply) {
	t.Helper()
	if r.status != 200 || !strings.Contains(r.body, `"text":"read"`) {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func wantUnknownKey(t *testing.T, s *jwtServer, r reply) {
	t.Helper()
	if r.status != 401 || r.header.Get("WWW-Authenticate") != invalid(s, "signature not verified") {
		t.Fatalf("%d %q %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
}

// TestKeyRotation: a token signed with a new key fetches the set again
// and is accepted; another unknown kid within the interval fetches
// nothing and is refused; after the interval it fetches once more; a
// retired key is refused once the set no longer has it.
func TestKeyRotation(t *testing.T) {
	s := startJWT(t, false, nil)
	wantOK(t, s.callWith(t, s.key))
	if n := s.is.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for the first token", n)
	}
	wantOK(t, s.callWith(t, s.key))
	if n := s.is.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches: the set was not cached", n)
	}
	s.clk.advance(oauth.DefaultMinRefreshInterval)
	next := s.is.addKey(t, jose.ES256, "key-2")
	s.is.retire(next)
	wantOK(t, s.callWith(t, next))
	if n := s.is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after the rotation", n)
	}
	stranger := newIssuer(t).addKey(t, jose.RS256, "key-3")
	wantUnknownKey(t, s, s.callWith(t, stranger))
	if n := s.is.fetches.Load(); n != 2 {
		t.Fatalf("an unknown kid within the interval fetched the set (%d fetches)", n)
	}
	s.clk.advance(oauth.DefaultMinRefreshInterval)
	wantUnknownKey(t, s, s.callWith(t, stranger))
	if n := s.is.fetches.Load(); n != 3 {
		t.Fatalf("%d fetches after the interval", n)
	}
	wantUnknownKey(t, s, s.callWith(t, s.key)) // key-1, retired
	if n := s.ran.Load(); n != 3 {
		t.Fatalf("%d handlers ran, want 3", n)
	}
}

// TestUnknownKidBurstFetchesOnce: concurrent tokens with a new kid share
// one fetch.
func TestUnknownKidBurstFetchesOnce(t *testing.T) {
	s := startJWT(t, false, nil)
	wantOK(t, s.callWith(t, s.key))
	s.clk.advance(oauth.DefaultMinRefreshInterval)
	next := s.is.addKey(t, jose.RS256, "key-2")
	tok := mint(t, next, s.is.claims(s.url, s.clk.Now(), "files:read"))
	var wg sync.WaitGroup
	replies := make([]reply, 16)
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = post(t, s.url, "Bearer "+tok, "tools/call", map[string]any{"name": "read"})
		}()
	}
	wg.Wait()
	for _, r := range replies {
		wantOK(t, r)
	}
	if n := s.is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches for a burst of one new kid", n)
	}
}

// TestKeySetUnreachable: a key set endpoint that hangs, answers garbage
// or fails. Before any good set, every token gets 503 (not a challenge:
// the token is not at fault) within the fetch timeout; with a good set,
// known keys go on verifying and an unknown kid is refused.
func TestKeySetUnreachable(t *testing.T) {
	for _, mode := range []string{"hang", "garbage", "down"} {
		t.Run(mode, func(t *testing.T) {
			s := startJWT(t, false, nil)
			s.is.mode.Store(mode)
			start := time.Now()
			r := s.callWith(t, s.key)
			if r.status != 503 || r.header.Get("WWW-Authenticate") != "" || r.header.Get("Retry-After") == "" {
				t.Fatalf("no set yet: %d %q", r.status, r.header.Get("WWW-Authenticate"))
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("the refusal took %s", d)
			}
			if s.ran.Load() != 0 {
				t.Fatal("a handler ran")
			}
			// The interval holds after a failed fetch too.
			s.callWith(t, s.key)
			if n := s.is.fetches.Load(); n != 1 {
				t.Fatalf("%d fetches within the interval", n)
			}

			s.is.mode.Store("ok")
			s.clk.advance(oauth.DefaultMinRefreshInterval)
			wantOK(t, s.callWith(t, s.key))
			s.is.mode.Store(mode)
			s.clk.advance(oauth.DefaultMinRefreshInterval)
			next := s.is.addKey(t, jose.RS256, "key-2")
			start = time.Now()
			wantUnknownKey(t, s, s.callWith(t, next))
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("the refusal took %s", d)
			}
			wantOK(t, s.callWith(t, s.key)) // the last good set still serves
			// Past its age, the set is fetched again; the failure keeps it.
			s.clk.advance(oauth.DefaultKeySetMaxAge)
			before := s.is.fetches.Load()
			wantOK(t, s.callWith(t, s.key))
			if s.is.fetches.Load() != before+1 {
				t.Fatal("a set past its age was not fetched again")
			}
		})
	}
}

// TestKeySetIsBounded: keys beyond MaxKeys are not kept.
func TestKeySetIsBounded(t *testing.T) {
	s := startJWT(t, false, func(c *oauth.JWTConfig) { c.MaxKeys = 4 })
	var keys []signingKey
	for i := range 6 {
		keys = append(keys, s.is.addKey(t, jose.ES256, fmt.Sprintf("k%d", i)))
	}
	wantOK(t, s.callWith(t, keys[2]))
	wantUnknownKey(t, s, s.callWith(t, keys[5]))
}

func TestJWTConfigIsChecked(t *testing.T) {
	for _, c := range []oauth.JWTConfig{
		{Audience: "https://mcp.example/mcp"},
		{Issuer: "https://as.example"},
		{Issuer: "https://as.example", Audience: "mcp"},
		{Issuer: "https://as.example", Audience: "https://mcp.example/mcp", Algorithms: []string{"HS256"}},
		{Issuer: "https://as.example", Audience: "https://mcp.example/mcp", Algorithms: []string{"none"}},
		{Issuer: "https://as.example", Audience: "https://mcp.example/mcp", Algorithms: []string{}},
		{Issuer: "https://as.example", Audience: "https://mcp.example/mcp", ClockSkew: time.Hour},
	} {
		if _, err := oauth.NewJWTVerifier(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
