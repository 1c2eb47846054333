package dispatch_test

import (
	"context"
	"encoding/base64"

	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func resourceRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2}
	base := []dispatch.Option{
		dispatch.WithResource(mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "hello")}}, nil
			}),
		dispatch.WithResource(mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.BlobContents(r.URI, "image/png", png)}}, nil
			}),
		dispatch.WithResource(mcp.Resource{URI: "test://json", Name: "json"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				c, err := mcp.JSONContents(r.URI, map[string]any{"a": 1})
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, err
			}),
		dispatch.WithResource(mcp.Resource{URI: "test://empty", Name: "empty"},
			func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "by-id"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				id := r.Vars.Get("id")
				if id == "missing" {
					return nil, fmt.Errorf("lookup: %w", dispatch.ErrResourceNotFound)
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "data for "+id)}}, nil
			}),
	}
	return mustNew(t, append(base, opts...)...)
}

func TestResourcesListAndTemplates(t *testing.T) {
	rt := resourceRuntime(t)
	r := resultOf(t, call(t, rt, "resources/list", nil))
	if got := names(r["resources"].([]any), "uri"); !reflect.DeepEqual(got, []string{"test://empty", "test://json", "test://static-binary", "test://static-text"}) {
		t.Fatalf("resources = %v", got)
	}
	if r["ttlMs"] != float64(0) || r["cacheScope"] != "private" || r["nextCursor"] != nil {
		t.Fatalf("cache hints or cursor wrong: %v", r)
	}
	r = resultOf(t, call(t, rt, "resources/templates/list", nil))
	if got := names(r["resourceTemplates"].([]any), "uriTemplate"); !reflect.DeepEqual(got, []string{"test://template/{id}/data"}) {
		t.Fatalf("templates = %v", got)
	}
	caps := resultOf(t, call(t, rt, "server/discover", nil))["capabilities"].(map[string]any)
	if _, ok := caps["resources"]; !ok {
		t.Fatalf("resources capability not advertised: %v", caps)
	}
	if _, ok := caps["completions"]; ok {
		t.Fatalf("completions advertised though nothing completes: %v", caps)
	}
}

func TestResourcesRead(t *testing.T) {
	rt := resourceRuntime(t)
	read := func(uri string) map[string]any {
		t.Helper()
		r := resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": uri}))
		if r["resultType"] != "complete" || r["cacheScope"] != "private" {
			t.Fatalf("read %s: %v", uri, r)
		}
		return r["contents"].([]any)[0].(map[string]any)
	}
	if c := read("test://static-text"); c["text"] != "hello" || c["mimeType"] != "text/plain" || c["blob"] != nil {
		t.Fatalf("text contents = %v", c)
	}
	c := read("test://static-binary")
	if b, err := base64.StdEncoding.DecodeString(c["blob"].(string)); err != nil || b[1] != 'P' || c["text"] != nil {
		t.Fatalf("blob contents = %v (%v)", c, err)
	}
	if c := read("test://json"); c["text"] != `{"a":1}` || c["mimeType"] != "application/json" {
		t.Fatalf("json contents = %v", c)
	}
	if c := read("test://template/123/data"); !strings.Contains(c["text"].(string), "123") || c["uri"] != "test://template/123/data" {
		t.Fatalf("template contents = %v", c)
	}
}

func TestResourceNotFound(t *testing.T) {
	rt := resourceRuntime(t)
	for _, uri := range []string{
		"test://nonexistent-resource-for-conformance-testing",
		"test://template/missing/data", // the handler says not found
		"test://empty",                 // empty contents are never sent
	} {
		e := rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": uri}), jsonrpc.CodeInvalidParams)
		if d := errorData(t, e); d["uri"] != uri {
			t.Errorf("%s: data = %v", uri, d)
		}
	}
	for _, bad := range []any{"relative/path", "", 7} {
		rpcError(t, call(t, rt, "resources/read", map[string]any{"uri": bad}), jsonrpc.CodeInvalidParams)
	}
	rpcError(t, call(t, rt, "resources/read", map[string]any{}), jsonrpc.CodeInvalidParams)
}

func TestResourceRegistrationErrors(t *testing.T) {
	h := func(context.Context, *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, nil
	}
	cases := map[string][]dispatch.Option{
		"template matches a fixed URI": {
			dispatch.WithResource(mcp.Resource{URI: "test://template/1/data", Name: "one"}, h),
			dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "t"}, h),
		},
		"fixed URI after template": {
			dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://x/{id}", Name: "t"}, h),
			dispatch.WithResource(mcp.Resource{URI: "test://x/1", Name: "one"}, h),
		},
		"duplicate":       {dispatch.WithResource(mcp.Resource{URI: "a://b", Name: "b"}, h), dispatch.WithResource(mcp.Resource{URI: "a://b", Name: "b"}, h)},
		"relative":        {dispatch.WithResource(mcp.Resource{URI: "b", Name: "b"}, h)},
		"no name":         {dispatch.WithResource(mcp.Resource{URI: "a://b"}, h)},
		"no handler":      {dispatch.WithResource(mcp.Resource{URI: "a://b", Name: "b"}, nil)},
		"bad template":    {dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "a://{#x}", Name: "t"}, h)},
		"completes other": {dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "a://{x}", Name: "t"}, h, dispatch.WithCompletion("y", func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) { return nil, nil }))},
	}
	for name, opts := range cases {
		if _, err := dispatch.New(testInfo, opts...); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestCacheHints(t *testing.T) {
	rt := resourceRuntime(t,
		dispatch.WithCacheHint(dispatch.CacheResources, 90*time.Second, mcp.CachePublic),
		dispatch.WithCacheHint(dispatch.CacheDiscovery, time.Second, mcp.CachePrivate),
		dispatch.WithLimits(dispatch.Limits{PageSize: 2}),
	)
	r := resultOf(t, call(t, rt, "resources/list", nil))
	if r["ttlMs"] != float64(90000) || r["cacheScope"] != "public" {
		t.Fatalf("page 1 hints: %v", r)
	}
	r2 := resultOf(t, call(t, rt, "resources/list", map[string]any{"cursor": r["nextCursor"]}))
	if r2["ttlMs"] != float64(90000) || r2["cacheScope"] != "public" {
		t.Fatalf("page 2 hints: %v", r2)
	}
	if r := resultOf(t, call(t, rt, "resources/read", map[string]any{"uri": "test://static-text"})); r["cacheScope"] != "public" {
		t.Fatalf("read hints: %v", r)
	}
	if r := resultOf(t, call(t, rt, "server/discover", nil)); r["ttlMs"] != float64(1000) || r["cacheScope"] != "private" {
		t.Fatalf("discover hints: %v", r)
	}
	for _, bad := range []dispatch.Option{
		dispatch.WithCacheHint(dispatch.CacheTools, -time.Second, mcp.CachePublic),
		dispatch.WithCacheHint(dispatch.CacheTools, 0, "shared"),
		dispatch.WithCacheHint(dispatch.CacheKind(99), 0, mcp.CachePublic),
	} {
		if _, err := dispatch.New(testInfo, bad); err == nil {
			t.Error("New accepted a bad cache hint")
		}
	}
}
