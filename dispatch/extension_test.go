package dispatch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func searchExtension() dispatch.Extension {
	return dispatch.Extension{
		ID:       "com.example/search",
		Settings: map[string]any{"maxResults": 10},
		Versions: []string{mcp.Version20260728},
		Methods: map[string]dispatch.ExtensionHandler{
			"search/query": func(_ context.Context, r *dispatch.ExtensionRequest) (any, error) {
				return map[string]any{"hits": []string{"a", "b"}, "settings": r.ClientSettings}, nil
			},
			"search/raw": func(context.Context, *dispatch.ExtensionRequest) (any, error) { return []int{1}, nil },
		},
		Negotiate: func(_ context.Context, client map[string]any) error {
			if client["mode"] == "legacy" {
				return errors.New("legacy mode is not supported")
			}
			if client["mode"] == "teapot" {
				return &jsonrpc.Error{Code: -31418, Message: "I'm a teapot"}
			}
			return nil
		},
	}
}

func extCall(t *testing.T, rt *dispatch.Runtime, method string, clientExt map[string]any) (map[string]any, *jsonrpc.Error) {
	t.Helper()
	caps := map[string]any{}
	if clientExt != nil {
		caps["extensions"] = map[string]any{"com.example/search": clientExt}
	}
	f := call(t, rt, method, withCaps(map[string]any{"q": "x"}, caps))
	if f.Error != nil {
		return nil, &jsonrpc.Error{Code: f.Error.Code, Message: f.Error.Message, Data: string(f.Error.Data)}
	}
	return resultOf(t, f), nil
}

func TestExtensionNegotiation(t *testing.T) {
	rt := mustNew(t, dispatch.WithExtension(searchExtension()))
	caps := resultOf(t, call(t, rt, "server/discover", nil))["capabilities"].(map[string]any)
	if s := caps["extensions"].(map[string]any)["com.example/search"].(map[string]any); s["maxResults"] != float64(10) {
		t.Fatalf("extension not advertised: %v", caps)
	}
	r, e := extCall(t, rt, "search/query", map[string]any{"mode": "fast"})
	if e != nil || r["resultType"] != "complete" || len(r["hits"].([]any)) != 2 || r["settings"].(map[string]any)["mode"] != "fast" {
		t.Fatalf("negotiated call: %v %v", r, e)
	}
	if r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("no serverInfo: %v", r)
	}
	if _, e := extCall(t, rt, "search/query", nil); e == nil || e.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(e.Data.(string), "com.example/search") {
		t.Fatalf("client without the extension: %v", e)
	}
	if _, e := extCall(t, rt, "search/query", map[string]any{"mode": "legacy"}); e == nil || e.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("refused negotiation: %v", e)
	}
	if _, e := extCall(t, rt, "search/query", map[string]any{"mode": "teapot"}); e == nil || e.Code != -31418 {
		t.Fatalf("negotiation's own error: %v", e)
	}
	if _, e := extCall(t, rt, "search/raw", map[string]any{}); e == nil || e.Code != jsonrpc.CodeInternalError {
		t.Fatalf("non-object result: %v", e)
	}
	if _, e := extCall(t, rt, "search/other", map[string]any{}); e == nil || e.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("uninstalled method: %v", e)
	}
	// Without the extension installed its methods do not exist.
	if _, e := extCall(t, mustNew(t), "search/query", map[string]any{}); e == nil || e.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("not installed: %v", e)
	}
}

func TestExtensionRegistrationErrors(t *testing.T) {
	h := func(context.Context, *dispatch.ExtensionRequest) (any, error) { return map[string]any{}, nil }
	mk := func(id string, versions []string, methods ...string) dispatch.Extension {
		m := map[string]dispatch.ExtensionHandler{}
		for _, name := range methods {
			m[name] = h
		}
		return dispatch.Extension{ID: id, Versions: versions, Methods: m}
	}
	v := []string{mcp.Version20260728}
	for name, opts := range map[string][]dispatch.Option{
		"core method":         {dispatch.WithExtension(mk("a/b", v, "tools/call"))},
		"removed core method": {dispatch.WithExtension(mk("a/b", v, "ping"))},
		"mrtr-only method":    {dispatch.WithExtension(mk("a/b", v, "elicitation/create"))},
		"notification":        {dispatch.WithExtension(mk("a/b", v, "notifications/x"))},
		"two extensions":      {dispatch.WithExtension(mk("a/b", v, "x/y")), dispatch.WithExtension(mk("a/c", v, "x/y"))},
		"installed twice":     {dispatch.WithExtension(mk("a/b", v, "x/y")), dispatch.WithExtension(mk("a/b", v, "x/z"))},
		"bad id":              {dispatch.WithExtension(mk("nodash", v, "x/y"))},
		"no version":          {dispatch.WithExtension(mk("a/b", nil, "x/y"))},
		"version not enabled": {dispatch.WithProtocolVersions(mcp.Version20260728), dispatch.WithExtension(mk("a/b", []string{mcp.Version20251125}, "x/y"))},
		"no methods":          {dispatch.WithExtension(mk("a/b", v))},
		"nil handler":         {dispatch.WithExtension(dispatch.Extension{ID: "a/b", Versions: v, Methods: map[string]dispatch.ExtensionHandler{"x/y": nil}})},
	} {
		if _, err := dispatch.New(testInfo, opts...); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}
