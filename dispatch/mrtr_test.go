package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

// allCaps declares every input capability.
var allCaps = map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}

func withCaps(params map[string]any, caps map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/clientCapabilities": caps}
	return params
}

func text(s string) *mcp.CallToolResult { return mcp.TextResult(s) }

func mrtrRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	elicitName := func(in *dispatch.Input) (string, bool) {
		r, ok := in.Elicitation("user_name")
		if !ok || r.Action != "accept" {
			return "", false
		}
		name, ok := r.Content["name"].(string)
		return name, ok
	}
	base := []dispatch.Option{
		dispatch.WithTool(mcp.Tool{Name: "test_input_required_result_elicitation"},
			func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if name, ok := elicitName(r.Input); ok {
					return text("Hello, " + name), nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"user_name": mcp.ElicitForm("What is your name?", nameSchema),
				}}
			}),
		dispatch.WithTool(mcp.Tool{Name: "test_input_required_result_request_state"},
			func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if state, ok := r.Input.State(); ok {
					return text("resumed with " + string(state)), nil
				}
				return nil, &dispatch.InputRequired{
					Requests: map[string]mcp.InputRequest{"confirm": mcp.ElicitForm("Go on?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`))},
					State:    []byte("state-ok"),
				}
			}),
		dispatch.WithTool(mcp.Tool{Name: "test_input_required_result_multi_round"},
			func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				state, _ := r.Input.State()
				ask := map[string]mcp.InputRequest{"step": &mcp.ListRootsRequest{}}
				switch string(state) {
				case "":
					return nil, &dispatch.InputRequired{Requests: ask, State: []byte("round-1")}
				case "round-1":
					return nil, &dispatch.InputRequired{Requests: ask, State: []byte("round-2")}
				}
				return text("done after " + string(state)), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "test_input_required_result_multiple_inputs"},
			func(_ context.Context, r *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				caps := r.Info.ClientCapabilities
				all := map[string]mcp.InputRequest{
					"user_name": mcp.ElicitForm("Name?", nameSchema),
					"capital": &mcp.CreateMessageRequest{MaxTokens: 100, Messages: []mcp.SamplingMessage{
						{Role: mcp.RoleUser, Content: []mcp.Content{mcp.Text("What is the capital of France?")}}}},
					"roots": &mcp.ListRootsRequest{},
				}
				ask := map[string]mcp.InputRequest{}
				for k, req := range all {
					if caps.Missing(req) == nil {
						ask[k] = req
					}
				}
				if s, ok := r.Input.Sampling("capital"); ok {
					roots, _ := r.Input.Roots("roots")
					return text("answer " + mcp.TextOf(s.Content) + " roots " + string(rune('0'+len(rootsOf(roots))))), nil
				}
				return nil, &dispatch.InputRequired{Requests: ask, State: []byte{}}
			}),
		dispatch.WithTool(mcp.Tool{Name: "test_missing_capability"},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"s": &mcp.CreateMessageRequest{MaxTokens: 10, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.Text("hi")}}}},
				}}
			}),
		dispatch.WithPrompt(mcp.Prompt{Name: "test_input_required_result_prompt"},
			func(_ context.Context, r *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				if c, ok := r.Input.Elicitation("user_context"); ok && c.Action == "accept" {
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("context given")}}}, nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"user_context": mcp.ElicitForm("Context?", json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}}}`))}}
			}),
		dispatch.WithResource(mcp.Resource{URI: "test://guarded", Name: "guarded"},
			func(_ context.Context, r *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				if st, ok := r.Input.State(); ok {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(r.URI, "text/plain", "unlocked "+string(st))}}, nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"login": mcp.ElicitURL("Sign in", "https://example.com/login")}, State: []byte("url-flow")}
			}),
	}
	return mustNew(t, append(base, opts...)...)
}

func rootsOf(r *mcp.ListRootsResult) []mcp.Root {
	if r == nil {
		return nil
	}
	return r.Roots
}

// callTool sends tools/call with the given capabilities and extra params.
func callTool(t *testing.T, rt *dispatch.Runtime, name string, caps map[string]any, extra map[string]any) (map[string]any, *rpcErr) {
	t.Helper()
	p := map[string]any{"name": name, "arguments": map[string]any{}}
	for k, v := range extra {
		p[k] = v
	}
	f := call(t, rt, "tools/call", withCaps(p, caps))
	if f.Error != nil {
		return nil, &rpcErr{code: f.Error.Code, data: f.Error.Data}
	}
	return resultOf(t, f), nil
}

type rpcErr struct {
	code int64
	data json.RawMessage
}

func TestMRTRElicitationRoundTrip(t *testing.T) {
	rt := mrtrRuntime(t)
	const tool = "test_input_required_result_elicitation"
	r, e := callTool(t, rt, tool, allCaps, nil)
	if e != nil || r["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", r, e)
	}
	req := r["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	if req["method"] != "elicitation/create" || req["params"].(map[string]any)["mode"] != "form" {
		t.Fatalf("input request = %v", req)
	}
	if _, cached := r["ttlMs"]; cached {
		t.Fatal("an input_required result carries cache hints")
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
	r, e = callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": map[string]any{"user_name": accept}})
	if e != nil || r["resultType"] != "complete" || !strings.Contains(r["content"].([]any)[0].(map[string]any)["text"].(string), "Ada") {
		t.Fatalf("round 2: %v %v", r, e)
	}
	// Unknown extra responses are ignored.
	r, _ = callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": map[string]any{"user_name": accept, "other": map[string]any{"action": "decline"}}})
	if r["resultType"] != "complete" {
		t.Fatalf("extra keys: %v", r)
	}
	// Only a wrong key: ask again rather than fail.
	r, _ = callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": map[string]any{"wrong": accept}})
	if r["resultType"] != "input_required" {
		t.Fatalf("wrong key: %v", r)
	}
	// Malformed responses never reach the handler.
	for name, v := range map[string]any{
		"number value":    map[string]any{"user_name": 12345},
		"null":            nil,
		"array":           []any{accept},
		"unknown shape":   map[string]any{"user_name": map[string]any{"foo": 1}},
		"bad action":      map[string]any{"user_name": map[string]any{"action": "maybe"}},
		"roots not array": map[string]any{"user_name": map[string]any{"roots": "x"}},
	} {
		if _, e := callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": v}); e == nil || e.code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: got %v, want -32602", name, e)
		}
	}
}

func TestMRTRRequestState(t *testing.T) {
	rt := mrtrRuntime(t)
	const tool = "test_input_required_result_request_state"
	r, _ := callTool(t, rt, tool, allCaps, nil)
	state, _ := r["requestState"].(string)
	if state == "" || strings.Contains(state, "state-ok") {
		t.Fatalf("requestState %q is missing or readable", state)
	}
	resp := map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}
	r, e := callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": resp, "requestState": state})
	if e != nil || !strings.Contains(r["content"].([]any)[0].(map[string]any)["text"].(string), "state-ok") {
		t.Fatalf("retry: %v %v", r, e)
	}
	for name, bad := range map[string]any{
		"tampered":   state + "-TAMPERED",
		"flipped":    flip(state),
		"not string": 7,
		"empty":      "",
		"too large":  strings.Repeat("a", dispatch.MaxRequestStateSize+1),
	} {
		if _, e := callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": resp, "requestState": bad}); e == nil || e.code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: got %v, want -32602", name, e)
		}
	}
	// Bound to the params: the same state with other arguments fails.
	p := map[string]any{"inputResponses": resp, "requestState": state, "arguments": map[string]any{"x": 1}}
	if _, e := callTool(t, rt, tool, allCaps, p); e == nil || e.code != jsonrpc.CodeInvalidParams {
		t.Errorf("other params: %v", e)
	}
	// Bound to the method: a tool's state on prompts/get fails.
	f := call(t, rt, "prompts/get", withCaps(map[string]any{"name": "test_input_required_result_prompt", "requestState": state}, allCaps))
	rpcError(t, f, jsonrpc.CodeInvalidParams)
}

func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestMRTRStateBindsPrincipalAndExpires(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	rt := mrtrRuntime(t, dispatch.WithClock(clock), dispatch.WithRequestStateTTL(time.Minute))
	const tool = "test_input_required_result_request_state"
	send := func(principal any, extra map[string]any) (map[string]any, int64) {
		t.Helper()
		return callToolAs(t, rt, tool, principal, extra)
	}
	r, _ := send("alice", nil)
	state := r["requestState"].(string)
	resp := map[string]any{"confirm": map[string]any{"action": "accept"}}
	if _, code := send("mallory", map[string]any{"inputResponses": resp, "requestState": state}); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("another principal: code %d", code)
	}
	if _, code := send(nil, map[string]any{"inputResponses": resp, "requestState": state}); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("no principal: code %d", code)
	}
	now.Add(int64(59 * time.Second))
	if r, code := send("alice", map[string]any{"inputResponses": resp, "requestState": state}); code != 0 || r["resultType"] != "complete" {
		t.Fatalf("before expiry: %v %d", r, code)
	}
	now.Add(int64(2 * time.Second))
	if _, code := send("alice", map[string]any{"inputResponses": resp, "requestState": state}); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("after expiry: code %d", code)
	}
}

func TestMRTRKeyRotation(t *testing.T) {
	k1 := bytes.Repeat([]byte{1}, 32)
	k2 := bytes.Repeat([]byte{2}, 32)
	old := mrtrRuntime(t, dispatch.WithRequestStateKeys(k1))
	rotated := mrtrRuntime(t, dispatch.WithRequestStateKeys(k2, k1))
	retired := mrtrRuntime(t, dispatch.WithRequestStateKeys(k2))
	const tool = "test_input_required_result_request_state"
	r, _ := callTool(t, old, tool, allCaps, nil)
	extra := map[string]any{"inputResponses": map[string]any{}, "requestState": r["requestState"]}
	if r, e := callTool(t, rotated, tool, allCaps, extra); e != nil || r["resultType"] != "complete" {
		t.Fatalf("rotated ring refused an old state: %v", e)
	}
	if _, e := callTool(t, retired, tool, allCaps, extra); e == nil || e.code != jsonrpc.CodeInvalidParams {
		t.Fatalf("retired key still accepted: %v", e)
	}
	// New states are signed with the first key.
	r, _ = callTool(t, rotated, tool, allCaps, nil)
	extra["requestState"] = r["requestState"]
	if _, e := callTool(t, retired, tool, allCaps, extra); e != nil {
		t.Fatalf("a state signed with the new key was refused: %v", e)
	}
	for name, opt := range map[string]dispatch.Option{
		"short key":  dispatch.WithRequestStateKeys([]byte("short")),
		"no keys":    dispatch.WithRequestStateKeys(),
		"nine keys":  dispatch.WithRequestStateKeys(k1, k2, bytes.Repeat([]byte{3}, 32), bytes.Repeat([]byte{4}, 32), bytes.Repeat([]byte{5}, 32), bytes.Repeat([]byte{6}, 32), bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{8}, 32), bytes.Repeat([]byte{9}, 32)),
		"repeated":   dispatch.WithRequestStateKeys(k1, k1),
		"ttl zero":   dispatch.WithRequestStateTTL(0),
		"ttl 16 min": dispatch.WithRequestStateTTL(16 * time.Minute),
	} {
		if _, err := dispatch.New(testInfo, opt); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestMRTRMultiRound(t *testing.T) {
	rt := mrtrRuntime(t)
	const tool = "test_input_required_result_multi_round"
	roots := map[string]any{"step": map[string]any{"roots": []any{}}}
	r1, _ := callTool(t, rt, tool, allCaps, nil)
	r2, _ := callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": roots, "requestState": r1["requestState"]})
	if r2["resultType"] != "input_required" || r2["requestState"] == r1["requestState"] {
		t.Fatalf("round 2 must ask again with a new state: %v", r2)
	}
	if p := r2["inputRequests"].(map[string]any)["step"].(map[string]any); p["method"] != "roots/list" || len(p["params"].(map[string]any)) != 0 {
		t.Fatalf("roots request = %v", p)
	}
	r3, _ := callTool(t, rt, tool, allCaps, map[string]any{"inputResponses": roots, "requestState": r2["requestState"]})
	if r3["resultType"] != "complete" {
		t.Fatalf("round 3: %v", r3)
	}
}

func TestMRTRCapabilities(t *testing.T) {
	rt := mrtrRuntime(t)
	// The handler asks only for what the client declared.
	r, _ := callTool(t, rt, "test_input_required_result_multiple_inputs", map[string]any{"sampling": map[string]any{}}, nil)
	reqs := r["inputRequests"].(map[string]any)
	if len(reqs) != 1 || reqs["capital"] == nil {
		t.Fatalf("with sampling only: %v", reqs)
	}
	r, _ = callTool(t, rt, "test_input_required_result_multiple_inputs", allCaps, nil)
	if len(r["inputRequests"].(map[string]any)) != 3 || r["requestState"] == nil {
		t.Fatalf("with every capability: %v", r)
	}
	sampled := map[string]any{
		"capital": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "Paris"}},
		"roots":   map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp"}}},
	}
	r, _ = callTool(t, rt, "test_input_required_result_multiple_inputs", allCaps, map[string]any{"inputResponses": sampled, "requestState": r["requestState"]})
	if got := r["content"].([]any)[0].(map[string]any)["text"]; got != "answer Paris roots 1" {
		t.Fatalf("answers = %v", got)
	}
	// A request the client cannot serve is -32021 naming what is missing.
	_, e := callTool(t, rt, "test_missing_capability", map[string]any{"elicitation": map[string]any{}}, nil)
	if e == nil || e.code != mcp.CodeMissingRequiredClientCapability || !bytes.Contains(e.data, []byte(`"requiredCapabilities":{"sampling":{}}`)) {
		t.Fatalf("missing capability: %+v %s", e, e.data)
	}
	// URL mode needs elicitation.url, not just elicitation.
	f := call(t, rt, "resources/read", withCaps(map[string]any{"uri": "test://guarded"}, map[string]any{"elicitation": map[string]any{}}))
	if d := errorData(t, rpcError(t, f, mcp.CodeMissingRequiredClientCapability)); !strings.Contains(string(mustJSON(d)), `"url":{}`) {
		t.Fatalf("url mode: %v", d)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestMRTROnPromptsAndResources(t *testing.T) {
	rt := mrtrRuntime(t)
	f := call(t, rt, "prompts/get", withCaps(map[string]any{"name": "test_input_required_result_prompt"}, allCaps))
	if r := resultOf(t, f); r["resultType"] != "input_required" || r["inputRequests"].(map[string]any)["user_context"] == nil {
		t.Fatalf("prompt round 1: %v", r)
	}
	f = call(t, rt, "prompts/get", withCaps(map[string]any{"name": "test_input_required_result_prompt",
		"inputResponses": map[string]any{"user_context": map[string]any{"action": "accept", "content": map[string]any{"context": "c"}}}}, allCaps))
	if r := resultOf(t, f); r["resultType"] != "complete" {
		t.Fatalf("prompt round 2: %v", r)
	}
	urlCaps := map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
	r := resultOf(t, call(t, rt, "resources/read", withCaps(map[string]any{"uri": "test://guarded"}, urlCaps)))
	if r["resultType"] != "input_required" {
		t.Fatalf("read round 1: %v", r)
	}
	r = resultOf(t, call(t, rt, "resources/read", withCaps(map[string]any{"uri": "test://guarded", "requestState": r["requestState"],
		"inputResponses": map[string]any{"login": map[string]any{"action": "accept"}}}, urlCaps)))
	if r["resultType"] != "complete" || r["ttlMs"] == nil {
		t.Fatalf("read round 2: %v", r)
	}
	// Lists never answer input_required.
	for _, m := range []string{"tools/list", "prompts/list"} {
		if r := resultOf(t, call(t, rt, m, nil)); r["resultType"] != "complete" {
			t.Fatalf("%s: %v", m, r)
		}
	}
}

func TestMRTRServerMistakesAreInternal(t *testing.T) {
	logger, logs := captureLogger()
	ask := func(ir *dispatch.InputRequired) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) { return nil, ir }
	}
	rt := mustNew(t, dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "empty"}, ask(&dispatch.InputRequired{})),
		dispatch.WithTool(mcp.Tool{Name: "huge"}, ask(&dispatch.InputRequired{State: bytes.Repeat([]byte("x"), 16<<10)})),
		dispatch.WithTool(mcp.Tool{Name: "nested_form"}, ask(&dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"f": mcp.ElicitForm("m", json.RawMessage(`{"type":"object","properties":{"a":{"type":"object"}}}`))}})),
		dispatch.WithPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}}},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil },
			dispatch.WithCompletion("a", func(context.Context, *dispatch.CompleteRequest) (*mcp.Completion, error) {
				return nil, &dispatch.InputRequired{State: []byte("x")}
			})),
		dispatch.WithTool(mcp.Tool{Name: "url_without_url"}, ask(&dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"u": &mcp.ElicitRequest{Mode: "url", Message: "m"}}})),
		dispatch.WithTool(mcp.Tool{Name: "sampling_without_messages"}, ask(&dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"s": &mcp.CreateMessageRequest{MaxTokens: 5}}})),
		dispatch.WithTool(mcp.Tool{Name: "sampling_link"}, ask(&dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"s": &mcp.CreateMessageRequest{MaxTokens: 5, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.ResourceLink{URI: "a://b", Name: "b"}}}}}}})),
		dispatch.WithTool(mcp.Tool{Name: "nil_request"}, ask(&dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"n": nil}})),
	)
	for _, name := range []string{"empty", "huge", "nested_form", "url_without_url", "sampling_without_messages", "sampling_link", "nil_request"} {
		if _, e := callTool(t, rt, name, allCaps, nil); e == nil || e.code != jsonrpc.CodeInternalError {
			t.Errorf("%s: %v", name, e)
		}
	}
	f := call(t, rt, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "p"}, "argument": map[string]any{"name": "a", "value": ""}})
	rpcError(t, f, jsonrpc.CodeInternalError)
	if !strings.Contains(logs.String(), "input") {
		t.Fatalf("not logged: %s", logs)
	}
}

func TestMRTRTypedTool(t *testing.T) {
	type in struct {
		Item string `json:"item"`
	}
	type out struct {
		Deleted string `json:"deleted"`
	}
	rt := mustNew(t, dispatch.WithTypedTool(mcp.Tool{Name: "delete"}, func(ctx context.Context, a in) (out, error) {
		if r, ok := dispatch.InputFromContext(ctx).Elicitation("confirm"); ok && r.Action == "accept" {
			return out{Deleted: a.Item}, nil
		}
		return out{}, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"confirm": mcp.ElicitForm("Delete "+a.Item+"?", json.RawMessage(`{"type":"object","properties":{}}`))}}
	}))
	r, _ := callTool(t, rt, "delete", allCaps, map[string]any{"arguments": map[string]any{"item": "x"}})
	if r["resultType"] != "input_required" {
		t.Fatalf("round 1: %v", r)
	}
	r, _ = callTool(t, rt, "delete", allCaps, map[string]any{"arguments": map[string]any{"item": "x"},
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept"}}})
	if r["structuredContent"].(map[string]any)["deleted"] != "x" {
		t.Fatalf("round 2: %v", r)
	}
}

// WithPrincipalID decides what a requestState is bound to: here the
// tenant of a "tenant/user" principal, so any user of the tenant may
// continue, and a user of another tenant may not.
func TestMRTRPrincipalIDDecidesTheBinding(t *testing.T) {
	tenant := func(p any) string {
		s, _ := p.(string)
		t, _, _ := strings.Cut(s, "/")
		return t
	}
	rt := mrtrRuntime(t, dispatch.WithPrincipalID(tenant))
	const tool = "test_input_required_result_request_state"
	send := func(principal any, extra map[string]any) (map[string]any, int64) {
		t.Helper()
		return callToolAs(t, rt, tool, principal, extra)
	}
	r, _ := send("acme/alice", nil)
	extra := map[string]any{"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept"}}, "requestState": r["requestState"]}
	if r, code := send("acme/bob", extra); code != 0 || r["resultType"] != "complete" {
		t.Fatalf("the same tenant: %v %d", r, code)
	}
	if _, code := send("globex/alice", extra); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("another tenant: code %d, want -32602", code)
	}
	if _, err := dispatch.New(mcp.Implementation{Name: "x", Version: "1"}, dispatch.WithPrincipalID(nil)); err == nil || !strings.Contains(err.Error(), "nil principal id function") {
		t.Fatalf("a nil function: %v", err)
	}
}

// callToolAs calls tool for principal with the extra params, returning
// the result or the error code.
func callToolAs(t *testing.T, rt *dispatch.Runtime, tool string, principal any, extra map[string]any) (map[string]any, int64) {
	t.Helper()
	p := map[string]any{"name": tool, "arguments": map[string]any{}}
	for k, v := range extra {
		p[k] = v
	}
	f := callWith(t, rt, "tools/call", withCaps(p, allCaps), func(r *dispatch.Request) { r.Principal = principal })
	if f.Error != nil {
		return nil, f.Error.Code
	}
	return resultOf(t, f), 0
}
