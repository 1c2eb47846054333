package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
)

func names(t *testing.T, r reply, list, key string) []string {
	t.Helper()
	var msg struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	var items []map[string]any
	if r.status != 200 || json.Unmarshal([]byte(r.body), &msg) != nil || json.Unmarshal(msg.Result[list], &items) != nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it[key]))
	}
	slices.Sort(out)
	return out
}

// TestScopePolicyOverHTTP: lists show what the token may use, uses beyond
// it get the 403 step-up challenge naming every scope they need, a
// broader scope implies narrower ones, and the principal reaches the
// handler.
func TestScopePolicyOverHTTP(t *testing.T) {
	s := startJWT(t, true, nil)
	read := "Bearer " + s.token(t, "files:read", nil)
	admin := "Bearer " + s.token(t, "files:admin prompts:use", nil)

	if got := names(t, post(t, s.url, read, "tools/list", nil), "tools", "name"); !slices.Equal(got, []string{"read", "whoami"}) {
		t.Fatalf("tools for files:read: %v", got)
	}
	if got := names(t, post(t, s.url, admin, "tools/list", nil), "tools", "name"); !slices.Equal(got, []string{"read", "whoami", "write"}) {
		t.Fatalf("tools for files:admin: %v", got)
	}
	if got := names(t, post(t, s.url, read, "resources/list", nil), "resources", "uri"); len(got) != 0 {
		t.Fatalf("resources for files:read: %v", got)
	}
	if got := names(t, post(t, s.url, admin, "resources/list", nil), "resources", "uri"); !slices.Equal(got, []string{"file:///secret"}) {
		t.Fatalf("resources for files:admin: %v", got)
	}
	if got := names(t, post(t, s.url, read, "prompts/list", nil), "prompts", "name"); len(got) != 0 {
		t.Fatalf("prompts for files:read: %v", got)
	}

	challenge := func(scope string) string {
		return fmt.Sprintf(`Bearer error="insufficient_scope", error_description="the token lacks a scope this request needs", scope="%s", %s`, scope, s.metadataParam())
	}
	for _, c := range []struct {
		method string
		params map[string]any
		scope  string
	}{
		{"tools/call", map[string]any{"name": "write"}, "files:write"},
		{"resources/read", map[string]any{"uri": "file:///secret"}, "files:admin"},
		{"prompts/get", map[string]any{"name": "greet"}, "prompts:use"},
	} {
		r := post(t, s.url, read, c.method, c.params)
		s.refused(t, r, http.StatusForbidden, challenge(c.scope))
		var msg struct {
			Error *jsonrpc.Error `json:"error"`
		}
		if json.Unmarshal([]byte(r.body), &msg) != nil || msg.Error == nil || msg.Error.Code != oauth.CodeInsufficientScope {
			t.Fatalf("%s: body %s", c.method, r.body)
		}
	}
	tmpl := post(t, s.url, "Bearer "+s.token(t, "prompts:use", nil), "resources/read", map[string]any{"uri": "file:///docs/a"})
	s.refused(t, tmpl, http.StatusForbidden, challenge("files:read"))

	for _, c := range []struct {
		auth, method string
		params       map[string]any
		want         string
	}{
		{admin, "tools/call", map[string]any{"name": "write"}, `"text":"written"`},
		{read, "resources/read", map[string]any{"uri": "file:///docs/a"}, `"text":"d"`},
		{admin, "prompts/get", map[string]any{"name": "greet"}, `"text":"hi"`},
		{read, "tools/call", map[string]any{"name": "whoami"}, fmt.Sprintf(`"text":"%s %s files:read"`, subject, clientID)},
	} {
		if r := post(t, s.url, c.auth, c.method, c.params); r.status != 200 || !strings.Contains(r.body, c.want) {
			t.Fatalf("%s %v: %d %s", c.method, c.params, r.status, r.body)
		}
	}
}

// TestRequiredScopes: a scope every request needs is named in the 401
// challenge, and a token without it gets 403.
func TestRequiredScopes(t *testing.T) {
	s := startJWT(t, false, nil, oauth.WithRequiredScopes("mcp:use"))
	s.refused(t, post(t, s.url, "", "server/discover", nil), 401, `Bearer scope="mcp:use", `+s.metadataParam())
	s.refused(t, post(t, s.url, "Bearer "+s.token(t, "files:read", nil), "server/discover", nil), 403,
		`Bearer error="insufficient_scope", error_description="the token lacks a scope this server requires", scope="mcp:use", `+s.metadataParam())
	if r := post(t, s.url, "Bearer "+s.token(t, "mcp:use files:read", nil), "tools/call", map[string]any{"name": "read"}); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestMetadataDocument is served without a token on both shapes.
func TestMetadataDocument(t *testing.T) {
	for _, handler := range []bool{false, true} {
		s := startJWT(t, handler, nil)
		resp, err := http.Get(s.base + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || doc["resource"] != s.url ||
			fmt.Sprint(doc["authorization_servers"]) != "["+s.is.url+"]" || fmt.Sprint(doc["bearer_methods_supported"]) != "[header]" ||
			fmt.Sprint(doc["scopes_supported"]) != "[files:read]" || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("handler %v: %d %v %v", handler, resp.StatusCode, doc, err)
		}
		resp, err = http.Post(s.base+"/.well-known/oauth-protected-resource/mcp", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("POST: %d", resp.StatusCode)
		}
	}
}

// TestScopeRefusalOffHTTP: without HTTP the policy's refusal is the
// JSON-RPC error, and a request without a principal has no scopes.
func TestScopeRefusalOffHTTP(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "local", Version: "1"},
		dispatch.WithAuthorizer(testPolicy()),
		dispatch.WithTool(mcp.Tool{Name: "write"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("written"), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for _, p := range []any{nil, &oauth.Principal{Scopes: []string{"files:read"}}} {
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			t.Fatal(err)
		}
		out := rt.Dispatch(context.Background(), &dispatch.Request{Message: msg, Transport: dispatch.TransportStdio, Principal: p})
		if out.ErrorCode != oauth.CodeInsufficientScope || !strings.Contains(string(out.Frame), `"data":{"scope":"files:write"}`) {
			t.Fatalf("principal %v: %d %s", p, out.ErrorCode, out.Frame)
		}
	}
}

// TestInitializeEraScopeRefusal: a 2025-11-25 client's call beyond its
// scopes gets the same 403 challenge.
func TestInitializeEraScopeRefusal(t *testing.T) {
	s := startJWT(t, false, nil)
	statuses := &recorder{rt: http.DefaultTransport}
	tr := &client.HTTPTransport{URL: s.url}
	tr.Client = &http.Client{Transport: statuses}
	tr.TokenSource = client.StaticToken(s.token(t, "files:read", nil))
	c, err := client.New(context.Background(), tr, client.WithProtocolVersions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "write", nil)
	var je *jsonrpc.Error
	if !errorsAs(err, &je) || je.Code != oauth.CodeInsufficientScope {
		t.Fatalf("%v", err)
	}
	last := statuses.last()
	if last.status != 403 || !strings.HasPrefix(last.challenge, `Bearer error="insufficient_scope"`) || s.ran.Load() != 0 {
		t.Fatalf("%+v, %d ran", last, s.ran.Load())
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// recorder keeps the status and challenge of every response.
type recorder struct {
	rt http.RoundTripper
	mu sync.Mutex
	rs []seen
}

type seen struct {
	status    int
	challenge string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.rs = append(r.rs, seen{resp.StatusCode, resp.Header.Get("WWW-Authenticate")})
		r.mu.Unlock()
	}
	return resp, err
}

func (r *recorder) last() seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.rs) == 0 {
		return seen{}
	}
	return r.rs[len(r.rs)-1]
}

func TestMiddlewareOptionsAreChecked(t *testing.T) {
	md := oauth.ResourceMetadata{Resource: testResource, AuthorizationServers: []string{"https://as.example"}}
	v, _ := oauth.NewIntrospector(oauth.IntrospectionConfig{Issuer: "https://as.example", ClientID: "a", ClientSecret: "b", Audience: testResource})
	for _, c := range []struct {
		opt  oauth.Option
		want string
	}{
		{oauth.WithRequiredScopes("a b"), "WithRequiredScopes"},
		{oauth.WithMaxTokenBytes(0), "WithMaxTokenBytes"},
		{oauth.WithLogger(nil), "WithLogger"},
	} {
		if _, err := oauth.NewMiddleware(md, v, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	for _, bad := range []oauth.ResourceMetadata{
		{Resource: "mcp.example.com", AuthorizationServers: md.AuthorizationServers},
		{Resource: testResource},
		{Resource: testResource, AuthorizationServers: md.AuthorizationServers, ScopesSupported: []string{"offline_access"}},
	} {
		if _, err := oauth.NewMiddleware(bad, v); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := oauth.NewMiddleware(md, nil); err == nil {
		t.Error("nil verifier accepted")
	}
}
