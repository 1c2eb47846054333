package oauth_test

import (
	"fmt"
	"strings"
	"testing"
)

// noSecrets fails if a log line or an instrumentation event of the
// server carries one of secrets. The logs must show that refusals were
// logged, so that their silence about secrets means something.
func noSecrets(t *testing.T, p *protected, secrets []string) {
	t.Helper()
	logs := p.logs.String()
	events := fmt.Sprintf("%#v", p.events.All())
	if !strings.Contains(logs, "oauth: request refused") || len(p.events.All()) == 0 {
		t.Fatalf("nothing to look at: %d bytes of logs, %d events", len(logs), len(p.events.All()))
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if strings.Contains(logs, s) {
			t.Errorf("the logs carry %.20q…", s)
		}
		if strings.Contains(events, s) {
			t.Errorf("an instrumentation event carries %.20q…", s)
		}
	}
}

// TestNoTokenOrClaimInLogsOrEvents sends accepted and refused tokens of
// every kind with everything logged at Debug, then looks for the tokens
// and their identity claims.
func TestNoTokenOrClaimInLogsOrEvents(t *testing.T) {
	s := startJWT(t, false, nil)
	good := s.token(t, "files:read", nil)
	expired := s.token(t, "files:read", func(c map[string]any) { c["exp"] = s.clk.Now().Add(-10 * 60e9).Unix() })
	foreign := s.token(t, "files:read", func(c map[string]any) { c["aud"] = "https://other.example/mcp" })
	for _, c := range []struct {
		tok, method string
		params      map[string]any
	}{
		{good, "tools/call", map[string]any{"name": "read"}},
		{good, "tools/call", map[string]any{"name": "write"}},
		{good, "tools/call", map[string]any{"name": "whoami"}},
		{good, "tools/list", nil},
		{expired, "tools/call", map[string]any{"name": "read"}},
		{foreign, "tools/call", map[string]any{"name": "read"}},
		{"", "server/discover", nil},
	} {
		auth := ""
		if c.tok != "" {
			auth = "Bearer " + c.tok
		}
		post(t, s.url, auth, c.method, c.params)
	}
	if s.ran.Load() != 2 {
		t.Fatalf("%d handlers ran, want 2", s.ran.Load())
	}
	noSecrets(t, s.protected, []string{good, expired, foreign, subject, clientID, secretClaim, strings.Split(good, ".")[1]})
}
