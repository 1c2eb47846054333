package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
)

// gatedServer serves the test runtime to requests carrying the bearer
// token it currently accepts; others get 401 with a Bearer challenge, or
// 403 when forbid names the token.
type gatedServer struct {
	ws *wireServer

	mu     sync.Mutex
	accept string
	forbid string
	seen   []string // the Authorization header of every request
}

func (g *gatedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	g.mu.Lock()
	g.seen = append(g.seen, auth)
	accept, forbid := g.accept, g.forbid
	g.mu.Unlock()
	switch {
	case forbid != "" && auth == "Bearer "+forbid:
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="more"`)
		w.WriteHeader(http.StatusForbidden)
	case auth != "Bearer "+accept:
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.invalid/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	default:
		g.ws.ServeHTTP(w, r)
	}
}

func (g *gatedServer) authorizations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.seen...)
}

// renewer hands out "old" until challenged, then what renew says.
type renewer struct {
	mu         sync.Mutex
	token      string
	renew      func(ch *client.AuthChallenge) (string, error)
	challenges []client.AuthChallenge
}

func (r *renewer) Token(context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.token, nil
}

func (r *renewer) HandleChallenge(_ context.Context, ch *client.AuthChallenge) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.challenges = append(r.challenges, *ch)
	t, err := r.renew(ch)
	if err == nil {
		r.token = t
	}
	return err
}

func startGated(t *testing.T, accept string) (*gatedServer, string) {
	g := &gatedServer{ws: newWireServer(t), accept: accept}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return g, srv.URL + "/mcp"
}

func TestStaticTokenIsSentOnEveryRequest(t *testing.T) {
	g, url := startGated(t, "s3cret")
	tr := &client.HTTPTransport{URL: url}
	tr.TokenSource = client.StaticToken("s3cret")
	tr.Header = http.Header{"Authorization": {"Bearer replaced"}}
	c, err := client.New(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range g.authorizations() {
		if a != "Bearer s3cret" {
			t.Fatalf("a request carried %q", a)
		}
	}
}

func TestChallengeHandlerRenewsAndTheRequestIsSentAgain(t *testing.T) {
	g, url := startGated(t, "new")
	r := &renewer{token: "old", renew: func(*client.AuthChallenge) (string, error) { return "new", nil }}
	tr := &client.HTTPTransport{URL: url}
	tr.TokenSource = r
	c, err := client.New(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "after login"})
	if err != nil || textOf(t, res) != "after login" {
		t.Fatalf("%+v %v", res, err)
	}
	if len(r.challenges) != 1 {
		t.Fatalf("%d challenges, want 1", len(r.challenges))
	}
	ch := r.challenges[0]
	if ch.StatusCode != http.StatusUnauthorized || ch.Token != "old" || ch.URL != url ||
		!strings.Contains(ch.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Fatalf("challenge %+v", ch)
	}
	seen := g.authorizations()
	if seen[0] != "Bearer old" || seen[1] != "Bearer new" {
		t.Fatalf("authorizations %v", seen)
	}
}

func TestARefusalThatPersistsEndsWithErrUnauthorized(t *testing.T) {
	g, url := startGated(t, "never")
	g.forbid = "t2"
	n := 0
	r := &renewer{token: "t0", renew: func(*client.AuthChallenge) (string, error) {
		n++
		if n == 1 {
			return "t1", nil
		}
		return "t2", nil
	}}
	tr := &client.HTTPTransport{URL: url}
	tr.TokenSource = r
	_, err := client.New(context.Background(), tr)
	if err == nil {
		t.Fatal("connected with a refused token")
	}
	// Two renewals, then the third answer (403) is the request's.
	if len(r.challenges) != 2 || len(g.authorizations()) != 3 {
		t.Fatalf("%d challenges, %d requests: %v", len(r.challenges), len(g.authorizations()), err)
	}
	var he *client.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusForbidden {
		t.Fatalf("error %v", err)
	}

	failing := &renewer{token: "t0", renew: func(*client.AuthChallenge) (string, error) { return "", errors.New("the user said no") }}
	tr = &client.HTTPTransport{URL: url}
	tr.TokenSource = failing
	_, err = client.New(context.Background(), tr)
	if !errors.Is(err, client.ErrUnauthorized) || !strings.Contains(err.Error(), "the user said no") {
		t.Fatalf("a failed renewal: %v", err)
	}
}
