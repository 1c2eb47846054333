package oauthmeta

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseChallenges(t *testing.T) {
	got := ParseChallenges([]string{
		`Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"`,
		`Basic realm="x", Bearer error="insufficient_scope", scope="a \"b\"", Error_Description=plain`,
		`Bearer error="unterminated`,
	})
	want := []Challenge{
		{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource", "scope": "files:read files:write"}},
		{Scheme: "Basic", Params: map[string]string{"realm": "x"}},
		{Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": `a "b"`, "error_description": "plain"}},
		{Scheme: "Bearer", Params: map[string]string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if b := Bearer([]string{`Basic realm="x"`, `Bearer scope="s"`}); b == nil || b.Params["scope"] != "s" {
		t.Fatalf("Bearer: %+v", b)
	}
	if Bearer([]string{`Basic realm="x"`}) != nil {
		t.Fatal("Bearer found in a Basic challenge")
	}
}

func TestFormatBearerRoundTrips(t *testing.T) {
	h := FormatBearer(Param{"error", "insufficient_scope"}, Param{"scope", "a b"}, Param{"error_description", `say "hi"` + "\n"}, Param{"empty", ""})
	if h != `Bearer error="insufficient_scope", scope="a b", error_description="say \"hi\" "` {
		t.Fatalf("formatted %s", h)
	}
	c := Bearer([]string{h})
	if c == nil || c.Params["scope"] != "a b" || c.Params["error_description"] != `say "hi" ` {
		t.Fatalf("parsed back %+v", c)
	}
	if FormatBearer() != "Bearer" {
		t.Fatal("no params")
	}
}

func TestDiscoveryURLs(t *testing.T) {
	got, err := DiscoveryURLs("https://auth.example.com/tenant1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("with a path: %v", got)
	}
	got, _ = DiscoveryURLs("https://auth.example.com")
	if !reflect.DeepEqual(got, []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}) {
		t.Fatalf("without a path: %v", got)
	}
	for _, bad := range []string{"auth.example.com", "https://a.example/?x=1", "https://a.example/#f", ""} {
		if _, err := DiscoveryURLs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestResourceMetadataURLs(t *testing.T) {
	got, _ := ResourceMetadataURLs("https://example.com/public/mcp")
	if !reflect.DeepEqual(got, []string{"https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}) {
		t.Fatalf("%v", got)
	}
	got, _ = ResourceMetadataURLs("https://example.com")
	if !reflect.DeepEqual(got, []string{"https://example.com/.well-known/oauth-protected-resource"}) {
		t.Fatalf("%v", got)
	}
	if p, _ := ResourceMetadataPath("http://127.0.0.1:8080/mcp"); p != "/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("path %s", p)
	}
}

func TestDiscoverTriesEachLocationAndChecksTheIssuer(t *testing.T) {
	var seen []string
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		switch r.URL.Path {
		case "/.well-known/openid-configuration/tenant":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(AuthorizationServer{Issuer: ts.URL + "/tenant", TokenEndpoint: ts.URL + "/token"})
		case "/.well-known/oauth-authorization-server/liar":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(AuthorizationServer{Issuer: "https://honest.example"})
		case "/.well-known/oauth-authorization-server/big":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"issuer":"` + strings.Repeat("x", MaxDocumentBytes) + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	ctx := context.Background()
	md, err := Discover(ctx, ts.Client(), ts.URL+"/tenant")
	if err != nil || md.TokenEndpoint != ts.URL+"/token" {
		t.Fatalf("%+v %v", md, err)
	}
	if !reflect.DeepEqual(seen, []string{"/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant"}) {
		t.Fatalf("order %v", seen)
	}
	if _, err := Discover(ctx, ts.Client(), ts.URL+"/liar"); err == nil || !strings.Contains(err.Error(), "honest.example") {
		t.Fatalf("a document naming another issuer: %v", err)
	}
	if _, err := Discover(ctx, ts.Client(), ts.URL+"/big"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("an oversized document: %v", err)
	}
	if _, err := Discover(ctx, ts.Client(), ts.URL+"/none"); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("no document: %v", err)
	}
}
