package oauth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// Identity values the minted tokens carry; none may appear in a log or an
// instrumentation event.
const (
	subject     = "subject-5f1c9a"
	clientID    = "client-8d2e40"
	secretClaim = "claim-value-b7a3"
)

// signingKey is a private key of the test issuer.
type signingKey struct {
	jwk jose.JSONWebKey
	alg jose.SignatureAlgorithm
}

// issuer is an authorization server's metadata and key set, minted
// locally; its JWKS endpoint can be made to hang or answer garbage.
type issuer struct {
	srv  *httptest.Server
	url  string
	mode atomic.Value // "ok", "hang", "garbage", "down"

	mu      sync.Mutex
	keys    []signingKey
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{}
	is.mode.Store("ok")
	hang := make(chan struct{})
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.url, "jwks_uri": is.url + "/jwks"})
		case "/jwks":
			is.fetches.Add(1)
			switch is.mode.Load() {
			case "hang":
				select {
				case <-hang:
				case <-r.Context().Done():
				}
				return
			case "garbage":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"keys": [{"kty": "RSA", "n": 12}], "tail": `))
				return
			case "down":
				http.Error(w, "down", http.StatusBadGateway)
				return
			}
			is.mu.Lock()
			set := jose.JSONWebKeySet{}
			for _, k := range is.keys {
				set.Keys = append(set.Keys, k.jwk.Public())
			}
			is.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(set)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { close(hang); is.srv.Close() })
	is.url = is.srv.URL
	return is
}

// addKey creates a key and publishes it.
func (is *issuer) addKey(t *testing.T, alg jose.SignatureAlgorithm, kid string) signingKey {
	t.Helper()
	var priv any
	var err error
	switch alg {
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	k := signingKey{jwk: jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: string(alg), Use: "sig"}, alg: alg}
	is.mu.Lock()
	is.keys = append(is.keys, k)
	is.mu.Unlock()
	return k
}

// retire stops publishing every key but keep.
func (is *issuer) retire(keep signingKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = []signingKey{keep}
}

// claims returns a valid access token's claims for resource at now.
func (is *issuer) claims(resource string, now time.Time, scope string) map[string]any {
	return map[string]any{
		"iss": is.url, "aud": resource, "sub": subject, "client_id": clientID, "scope": scope,
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"jti": "jti-" + fmt.Sprint(now.UnixNano()), "private": secretClaim,
	}
}

// mint signs claims with k, with typ at+jwt.
func mint(t *testing.T, k signingKey, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", k.jwk.KeyID)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.jwk.Key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// clock is a settable time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// protected is the MCP server under test, on the native listener or as a
// Handler in a mux, with a ScopePolicy and everything logged at Debug.
type protected struct {
	url, base string
	mw        *oauth.Middleware
	ran       atomic.Int32 // tool, prompt and resource handlers that ran
	logs      *testfixture.Buffer
	events    *testfixture.Events
}

// The policy every test server applies.
func testPolicy() *oauth.ScopePolicy {
	return &oauth.ScopePolicy{
		Tools:     map[string][]string{"read": {"files:read"}, "write": {"files:write"}},
		Resources: map[string][]string{"file:///secret": {"files:admin"}, "file:///docs/{name}": {"files:read"}},
		Prompts:   map[string][]string{"greet": {"prompts:use"}},
		Implies:   map[string][]string{"files:admin": {"files:read", "files:write"}},
	}
}

// startProtected serves the test runtime protected by a middleware over
// v. handler selects the http.Handler shape instead of the native
// listener.
func startProtected(t *testing.T, handler bool, v func(resource string) oauth.Verifier, authServers []string, opts ...oauth.Option) *protected {
	t.Helper()
	p := &protected{logs: &testfixture.Buffer{}, events: &testfixture.Events{}}
	logger := slog.New(slog.NewTextHandler(p.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ran := func() { p.ran.Add(1) }
	text := func(s string) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			ran()
			return mcp.TextResult(s), nil
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "protected", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithInstrumentation(p.events),
		dispatch.WithAuthorizer(testPolicy()),
		dispatch.WithTool(mcp.Tool{Name: "read"}, text("read")),
		dispatch.WithTool(mcp.Tool{Name: "write"}, text("written")),
		dispatch.WithTool(mcp.Tool{Name: "whoami"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			ran()
			pr, _ := req.Info.Principal.(*oauth.Principal)
			if pr == nil {
				return mcp.TextResult("nobody"), nil
			}
			return mcp.TextResult(pr.Subject + " " + pr.ClientID + " " + strings.Join(pr.Scopes, ",")), nil
		}),
		dispatch.WithResource(mcp.Resource{URI: "file:///secret", Name: "secret"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				ran()
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "s")}}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "docs"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				ran()
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "d")}}, nil
			}),
		dispatch.WithPrompt(mcp.Prompt{Name: "greet"}, func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			ran()
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}}, nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Errorf("closing the supervisor: %v", err)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.base = "http://" + ln.Addr().String()
	p.url = p.base + "/mcp"
	md := oauth.ResourceMetadata{Resource: p.url, AuthorizationServers: authServers, ScopesSupported: []string{"files:read"}}
	p.mw, err = oauth.NewMiddleware(md, v(p.url), append([]oauth.Option{oauth.WithLogger(logger)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !handler {
		srv, err := streamablehttp.Listen(rt, streamablehttp.WithSupervisor(sup), streamablehttp.WithListener(ln),
			streamablehttp.WithHTTPMiddleware(p.mw.Wrap))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		return p
	}
	h, err := streamablehttp.NewHandler(rt, streamablehttp.WithSupervisor(sup))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.mw.Wrap(h))
	mux.Handle(md.Path(), md.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return p
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   string
}

// post sends one 2026-07-28 request, with the mirrored headers, carrying
// auth as the Authorization header ("" for none).
func post(t *testing.T, url, auth, method string, params map[string]any) reply {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return postFrame(t, url, auth, method, params, frame)
}

func postFrame(t *testing.T, url, auth, method string, params map[string]any, frame []byte) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b.String()}
}
