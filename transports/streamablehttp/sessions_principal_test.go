package streamablehttp_test

import (
	"net/http"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// idPrincipal is a new value per request that names its party, as a
// principal made from each request's access token does.
type idPrincipal struct{ id string }

func (p *idPrincipal) PrincipalID() string { return p.id }

// TestSessionBoundToAnIdentifiedPrincipal: a session bound to a
// dispatch.IdentifiedPrincipal answers a new value with the same
// PrincipalID (a refreshed token's) and refuses another party's with 404;
// a principal that names no party ("") matches only itself, so a new
// value of it is refused too.
func TestSessionBoundToAnIdentifiedPrincipal(t *testing.T) {
	user := func(r *http.Request) any { return &idPrincipal{id: r.Header.Get("X-User")} }
	ep := startListener(t, legacyRuntime(t), streamablehttp.WithPrincipal(user),
		streamablehttp.WithSessions(streamablehttp.SessionConfig{BindPrincipal: true}))
	as := func(id string) func(*http.Request) { return func(r *http.Request) { r.Header.Set("X-User", id) } }
	open := func(id string) *testfixture.HTTPSession {
		t.Helper()
		s := &testfixture.HTTPSession{URL: ep.url, Client: http.DefaultClient, Version: mcp.Version20251125}
		s.Init = s.Post(t, testfixture.Initialize(0, s.Version, nil), func(r *http.Request) { as(id)(r); r.Header.Del("Mcp-Protocol-Version") })
		if s.ID = s.Init.Header.Get(mcp.HeaderSessionID); s.ID == "" {
			t.Fatalf("no session: %s", s.Init.Body)
		}
		return s
	}
	ping := func(s *testfixture.HTTPSession, id string) int {
		t.Helper()
		return s.Post(t, testfixture.LegacyRequest(1, "ping", nil), as(id)).Status
	}
	alice := open("alice")
	for _, c := range []struct {
		id   string
		want int
	}{{"alice", http.StatusOK}, {"bob", http.StatusNotFound}, {"", http.StatusNotFound}, {"alice", http.StatusOK}} {
		if got := ping(alice, c.id); got != c.want {
			t.Fatalf("alice's session as %q: %d, want %d", c.id, got, c.want)
		}
	}
	if got := ping(open(""), ""); got != http.StatusNotFound {
		t.Fatalf("a session of a principal without identity answered another value of it: %d", got)
	}
}
