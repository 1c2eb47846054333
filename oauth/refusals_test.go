package oauth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/snodo-go/snodo/oauth"
)

// jwtServer is a protected server whose tokens come from a local issuer,
// with a settable clock.
type jwtServer struct {
	*protected
	is  *issuer
	key signingKey
	clk *clock
}

func startJWT(t *testing.T, handler bool, cfg func(*oauth.JWTConfig), opts ...oauth.Option) *jwtServer {
	t.Helper()
	s := &jwtServer{is: newIssuer(t), clk: newClock()}
	s.key = s.is.addKey(t, jose.RS256, "key-1")
	s.protected = startProtected(t, handler, func(resource string) oauth.Verifier {
		c := oauth.JWTConfig{Issuer: s.is.url, Audience: resource, Now: s.clk.Now, FetchTimeout: 300 * time.Millisecond}
		if cfg != nil {
			cfg(&c)
		}
		v, err := oauth.NewJWTVerifier(c)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, []string{s.is.url}, opts...)
	return s
}

// token mints a token with the server's key, edited by edit.
func (s *jwtServer) token(t *testing.T, scope string, edit func(map[string]any)) string {
	t.Helper()
	c := s.is.claims(s.url, s.clk.Now(), scope)
	if edit != nil {
		edit(c)
	}
	return mint(t, s.key, c)
}

// challenge checks a refusal: its status, its WWW-Authenticate header
// exactly, and that nothing ran.
func (s *jwtServer) refused(t *testing.T, r reply, status int, header string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (%s)", r.status, status, r.body)
	}
	if got := r.header.Get("WWW-Authenticate"); got != header {
		t.Fatalf("WWW-Authenticate\n got %s\nwant %s", got, header)
	}
	if n := s.ran.Load(); n != 0 {
		t.Fatalf("%d handlers ran", n)
	}
}

func (s *jwtServer) metadataParam() string {
	return fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.base)
}

func invalid(s *jwtServer, description string) string {
	return fmt.Sprintf(`Bearer error="invalid_token", error_description="%s", %s`, description, s.metadataParam())
}

// Every refusal at its boundary, on both HTTP shapes.
func TestRefusals(t *testing.T) {
	for _, shape := range []struct {
		name    string
		handler bool
	}{{"listener", false}, {"handler", true}} {
		t.Run(shape.name, func(t *testing.T) {
			call := map[string]any{"name": "read"}
			cases := []struct {
				name   string
				auth   func(t *testing.T, s *jwtServer) string
				status int
				header func(s *jwtServer) string
			}{
				{"no token", func(*testing.T, *jwtServer) string { return "" }, 401,
					func(s *jwtServer) string { return "Bearer " + s.metadataParam() }},
				{"another scheme", func(*testing.T, *jwtServer) string { return "Basic dXNlcjpwYXNz" }, 401,
					func(s *jwtServer) string { return "Bearer " + s.metadataParam() }},
				{"expired one second past the skew", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) {
						c["exp"] = s.clk.Now().Add(-oauth.DefaultClockSkew - time.Second).Unix()
						c["iat"], c["nbf"] = s.clk.Now().Add(-time.Hour).Unix(), s.clk.Now().Add(-time.Hour).Unix()
					})
				}, 401, func(s *jwtServer) string { return invalid(s, "token expired") }},
				{"no exp", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) { delete(c, "exp") })
				}, 401, func(s *jwtServer) string { return invalid(s, "malformed token") }},
				{"not yet valid past the skew", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) {
						c["nbf"] = s.clk.Now().Add(oauth.DefaultClockSkew + time.Second).Unix()
					})
				}, 401, func(s *jwtServer) string { return invalid(s, "token not valid yet") }},
				{"wrong audience", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) { c["aud"] = "https://other.example/mcp" })
				}, 401, func(s *jwtServer) string { return invalid(s, "token not issued for this resource") }},
				{"no audience", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) { delete(c, "aud") })
				}, 401, func(s *jwtServer) string { return invalid(s, "token not issued for this resource") }},
				{"wrong issuer", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) { c["iss"] = "https://other.example" })
				}, 401, func(s *jwtServer) string { return invalid(s, "token from another issuer") }},
				{"alg none", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + unsigned(s.is.claims(s.url, s.clk.Now(), "files:read"))
				}, 401, func(s *jwtServer) string { return invalid(s, "signature not verified") }},
				{"RS256 key used as an HS256 secret", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + hmacWithPublicKey(t, s.key, s.is.claims(s.url, s.clk.Now(), "files:read"))
				}, 401, func(s *jwtServer) string { return invalid(s, "signature not verified") }},
				{"signed by a key the issuer does not publish", func(t *testing.T, s *jwtServer) string {
					other := newIssuer(t).addKey(t, jose.RS256, "key-1")
					return "Bearer " + mint(t, other, s.is.claims(s.url, s.clk.Now(), "files:read"))
				}, 401, func(s *jwtServer) string { return invalid(s, "signature not verified") }},
				{"oversized", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:read", func(c map[string]any) { c["pad"] = strings.Repeat("x", oauth.DefaultMaxTokenBytes) })
				}, 401, func(s *jwtServer) string { return invalid(s, "token larger than the bound") }},
				{"not a token", func(*testing.T, *jwtServer) string { return "Bearer not,a\"token" }, 401,
					func(s *jwtServer) string { return invalid(s, "malformed token") }},
				{"garbage", func(*testing.T, *jwtServer) string { return "Bearer abc.def.ghi" }, 401,
					func(s *jwtServer) string { return invalid(s, "malformed token") }},
				{"valid, without the tool's scope", func(t *testing.T, s *jwtServer) string {
					return "Bearer " + s.token(t, "files:write", nil)
				}, 403, func(s *jwtServer) string {
					return `Bearer error="insufficient_scope", error_description="the token lacks a scope this request needs", scope="files:read", ` + s.metadataParam()
				}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					s := startJWT(t, shape.handler, nil)
					r := post(t, s.url, c.auth(t, s), "tools/call", call)
					s.refused(t, r, c.status, c.header(s))
				})
			}
			t.Run("token in the query string", func(t *testing.T) {
				s := startJWT(t, shape.handler, nil)
				tok := s.token(t, "files:read", nil)
				r := post(t, s.url+"?access_token="+tok, "Bearer "+tok, "tools/call", call)
				s.refused(t, r, 400, `Bearer error="invalid_request", error_description="access tokens are accepted in the Authorization header only", `+s.metadataParam())
			})
			t.Run("two Authorization headers", func(t *testing.T) {
				s := startJWT(t, shape.handler, nil)
				tok := s.token(t, "files:read", nil)
				r := postTwice(t, s.url, "Bearer "+tok)
				s.refused(t, r, 400, `Bearer error="invalid_request", error_description="more than one Authorization header", `+s.metadataParam())
			})
			t.Run("accepted just inside the skew", func(t *testing.T) {
				s := startJWT(t, shape.handler, nil)
				tok := s.token(t, "files:read", func(c map[string]any) {
					c["exp"] = s.clk.Now().Add(-oauth.DefaultClockSkew + time.Second).Unix()
					c["nbf"] = s.clk.Now().Add(oauth.DefaultClockSkew - time.Second).Unix()
				})
				if r := post(t, s.url, "Bearer "+tok, "tools/call", call); r.status != 200 || !strings.Contains(r.body, `"text":"read"`) || s.ran.Load() != 1 {
					t.Fatalf("%d %s, %d ran", r.status, r.body, s.ran.Load())
				}
			})
		})
	}
}

// unsigned builds a token with alg none.
func unsigned(claims map[string]any) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt","kid":"key-1"}`))
	p, _ := json.Marshal(claims)
	return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

// hmacWithPublicKey builds the classic confusion: HS256 keyed with the
// issuer's public key, in PEM, as a naive verifier would read it.
func hmacWithPublicKey(t *testing.T, k signingKey, claims map[string]any) string {
	t.Helper()
	pub := k.jwk.Public()
	der, err := x509.MarshalPKIXPublicKey(pub.Key)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"at+jwt","kid":"key-1"}`))
	p, _ := json.Marshal(claims)
	input := h + "." + base64.RawURLEncoding.EncodeToString(p)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// postTwice sends a discover request with two Authorization headers.
func postTwice(t *testing.T, url, auth string) reply {
	t.Helper()
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(frame)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	req.Header.Add("Authorization", auth)
	req.Header.Add("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return reply{status: resp.StatusCode, header: resp.Header}
}
