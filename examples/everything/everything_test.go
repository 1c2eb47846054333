package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// caps are the client capabilities the suite declares by default.
var caps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

type fixture struct {
	t  *testing.T
	rt *dispatch.Runtime
	id atomic.Int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	rt, err := newRuntime(testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, rt: rt}
}

// call sends one 2026-07-28 request declaring clientCaps (nil: none) and
// returns the response, validated against the official schema.
func (f *fixture) call(method string, params map[string]any, clientCaps map[string]any, setup func(*dispatch.Request)) *testkit.Frame {
	f.t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	if clientCaps != nil {
		meta[mcp.MetaClientCapabilities] = clientCaps
	}
	p["_meta"] = meta
	if setup == nil {
		setup = func(*dispatch.Request) {}
	}
	return testfixture.DispatchRequest(f.t, f.rt, testkit.Request(f.id.Add(1), method, p), setup)
}

// result decodes a successful response's result, failing on an error.
func (f *fixture) result(fr *testkit.Frame) map[string]any {
	f.t.Helper()
	if fr.Error != nil {
		f.t.Fatalf("error %d %s: %s", fr.Error.Code, fr.Error.Message, fr.Error.Data)
	}
	var m map[string]any
	if err := json.Unmarshal(fr.Result, &m); err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fixture) tool(name string, args map[string]any, clientCaps map[string]any) map[string]any {
	f.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return f.result(f.call("tools/call", params, clientCaps, nil))
}

func content(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	if res["resultType"] != "complete" {
		t.Fatalf("resultType %v, want complete: %v", res["resultType"], res)
	}
	raw, _ := res["content"].([]any)
	out := make([]map[string]any, len(raw))
	for i, c := range raw {
		out[i] = c.(map[string]any)
	}
	return out
}

func names(list []any, key string) []string {
	var out []string
	for _, item := range list {
		out = append(out, item.(map[string]any)[key].(string))
	}
	return out
}

// Every component the suite names is listed, with a description and an
// input schema.
func TestListsNameEverythingTheSuiteUses(t *testing.T) {
	f := newFixture(t)
	tools := f.result(f.call("tools/list", nil, nil, nil))["tools"].([]any)
	for _, tool := range tools {
		m := tool.(map[string]any)
		if m["description"] == "" || m["inputSchema"] == nil {
			t.Errorf("tool %v lacks a description or an input schema", m["name"])
		}
	}
	got := names(tools, "name")
	for _, want := range []string{
		"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress", "test_error_handling",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		"json_schema_2020_12_tool", "test_x_mcp_header", "test_missing_capability", "test_streaming_elicitation",
		"test_logging_tool", "test_trigger_tool_change", "test_trigger_prompt_change",
		"test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"echo", "sleep",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	prompts := names(f.result(f.call("prompts/list", nil, nil, nil))["prompts"].([]any), "name")
	for _, want := range []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"} {
		if !slices.Contains(prompts, want) {
			t.Errorf("prompts/list lacks %s", want)
		}
	}
	resources := names(f.result(f.call("resources/list", nil, nil, nil))["resources"].([]any), "uri")
	for _, want := range []string{"test://static-text", "test://static-binary", "test://watched-resource"} {
		if !slices.Contains(resources, want) {
			t.Errorf("resources/list lacks %s", want)
		}
	}
	templates := names(f.result(f.call("resources/templates/list", nil, nil, nil))["resourceTemplates"].([]any), "uriTemplate")
	if !slices.Equal(templates, []string{templateURI}) {
		t.Errorf("templates %v", templates)
	}
	c := f.rt.Capabilities()
	if c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Completions == nil || c.Logging == nil {
		t.Errorf("capabilities %+v lack one of tools, resources, prompts, completions, logging", c)
	}
}

// No frame may hold a raw newline: stdio frames are newline-delimited.
func TestListFramesAreOneLine(t *testing.T) {
	f := newFixture(t)
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		if fr := f.call(m, nil, nil, nil); bytes.ContainsAny(fr.Raw, "\r\n") {
			t.Errorf("%s frame holds a line break", m)
		}
	}
}

func TestContentTools(t *testing.T) {
	f := newFixture(t)
	// The suite calls test_simple_text with no arguments member at all.
	if c := content(t, f.tool("test_simple_text", nil, nil)); len(c) != 1 || c[0]["text"] != simpleText {
		t.Errorf("simple text: %v", c)
	}
	img := content(t, f.tool("test_image_content", map[string]any{}, nil))
	if img[0]["type"] != "image" || img[0]["mimeType"] != "image/png" {
		t.Errorf("image: %v", img)
	}
	data, err := base64.StdEncoding.DecodeString(img[0]["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("image data is not a PNG: %v", err)
	}
	audio := content(t, f.tool("test_audio_content", nil, nil))
	wav, err := base64.StdEncoding.DecodeString(audio[0]["data"].(string))
	if err != nil || audio[0]["type"] != "audio" || audio[0]["mimeType"] != "audio/wav" ||
		!bytes.HasPrefix(wav, []byte("RIFF")) || string(wav[8:12]) != "WAVE" {
		t.Errorf("audio: %v (%v)", audio, err)
	}
	emb := content(t, f.tool("test_embedded_resource", nil, nil))
	res := emb[0]["resource"].(map[string]any)
	if emb[0]["type"] != "resource" || res["uri"] != embeddedResource || res["text"] != embeddedText || res["mimeType"] != "text/plain" {
		t.Errorf("embedded: %v", emb)
	}
	var types []string
	for _, c := range content(t, f.tool("test_multiple_content_types", nil, nil)) {
		types = append(types, c["type"].(string))
	}
	if !slices.Equal(types, []string{"text", "image", "resource"}) {
		t.Errorf("mixed content types %v", types)
	}
	errRes := f.tool("test_error_handling", nil, nil)
	if errRes["isError"] != true || content(t, errRes)[0]["text"] != errorText {
		t.Errorf("error handling: %v", errRes)
	}
	if c := content(t, f.tool("echo", map[string]any{"text": "hello"}, nil)); c[0]["text"] != "hello" {
		t.Errorf("echo: %v", c)
	}
	if c := content(t, f.tool("sleep", map[string]any{"ms": 1}, nil)); c[0]["text"] != "slept 1 ms" {
		t.Errorf("sleep: %v", c)
	}
}

func TestSleepHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sleepTool(ctx, &dispatch.CallToolRequest{Arguments: json.RawMessage(`{"ms":600000}`)})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("sleep ignored cancellation")
	}
}

func TestProgressOnlyWithAToken(t *testing.T) {
	f := newFixture(t)
	rec := testfixture.NewRecorder(t)
	notifier := func(r *dispatch.Request) { r.Notifier = rec }
	params := map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": "progress-test-1"}}
	content(t, f.result(f.call("tools/call", params, nil, notifier)))
	var progress []float64
	for _, n := range rec.Notifications() {
		if n.Method != "notifications/progress" || n.Params["progressToken"] != "progress-test-1" || n.Params["total"] != 100.0 {
			t.Fatalf("unexpected notification %s", n.Raw)
		}
		progress = append(progress, n.Params["progress"].(float64))
	}
	if !slices.Equal(progress, []float64{0, 50, 100}) {
		t.Errorf("progress %v, want 0 50 100", progress)
	}
	rec = testfixture.NewRecorder(t)
	content(t, f.result(f.call("tools/call", map[string]any{"name": "test_tool_with_progress"}, nil, func(r *dispatch.Request) { r.Notifier = rec })))
	if n := rec.Notifications(); len(n) != 0 {
		t.Errorf("progress without a token: %d notifications", len(n))
	}
}

func TestLoggingFollowsTheRequestLevel(t *testing.T) {
	f := newFixture(t)
	logs := func(tool, level string) []testfixture.Recorded {
		rec := testfixture.NewRecorder(t)
		params := map[string]any{"name": tool}
		if level != "" {
			params["_meta"] = map[string]any{mcp.MetaLogLevel: level}
		}
		content(t, f.result(f.call("tools/call", params, nil, func(r *dispatch.Request) { r.Notifier = rec })))
		return rec.Notifications()
	}
	got := logs("test_tool_with_logging", "debug")
	if len(got) != 3 {
		t.Fatalf("%d log notifications, want 3", len(got))
	}
	for _, n := range got {
		if n.Method != "notifications/message" || n.Params["level"] != "info" {
			t.Errorf("log notification %s", n.Raw)
		}
	}
	if n := logs("test_logging_tool", ""); len(n) != 0 {
		t.Errorf("test_logging_tool without a log level sent %d notifications", len(n))
	}
	if n := logs("test_logging_tool", "info"); len(n) != 1 {
		t.Errorf("test_logging_tool at info sent %d notifications, want 1", len(n))
	}
	if n := logs("test_logging_tool", "error"); len(n) != 0 {
		t.Errorf("test_logging_tool at error sent %d notifications, want 0", len(n))
	}
}

func TestMissingCapabilityIsMinus32021(t *testing.T) {
	f := newFixture(t)
	fr := f.call("tools/call", map[string]any{"name": "test_missing_capability"}, map[string]any{}, nil)
	if fr.Error == nil || fr.Error.Code != -32021 {
		t.Fatalf("response %s, want -32021", fr.Raw)
	}
	var data struct {
		Required map[string]any `json:"requiredCapabilities"`
	}
	if err := json.Unmarshal(fr.Error.Data, &data); err != nil || data.Required["sampling"] == nil || len(data.Required) != 1 {
		t.Errorf("data %s, want requiredCapabilities {sampling:{}}", fr.Error.Data)
	}
	if res := f.tool("test_missing_capability", nil, caps); res["resultType"] != "input_required" {
		t.Errorf("with sampling declared: %v", res)
	}
}

func TestJSONSchema202012IsSentAsWritten(t *testing.T) {
	f := newFixture(t)
	for _, tool := range f.result(f.call("tools/list", nil, nil, nil))["tools"].([]any) {
		m := tool.(map[string]any)
		if m["name"] != "json_schema_2020_12_tool" {
			continue
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(jsonSchema202012), &want); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(m["inputSchema"])
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(got, wantJSON) {
			t.Errorf("schema\n%s\nwant\n%s", got, wantJSON)
		}
		return
	}
	t.Fatal("json_schema_2020_12_tool not listed")
}

func TestXMCPHeaderIsChecked(t *testing.T) {
	f := newFixture(t)
	headers := func(region string) func(*dispatch.Request) {
		return func(r *dispatch.Request) {
			r.Header = map[string][]string{
				"Mcp-Protocol-Version": {mcp.Version20260728},
				"Mcp-Method":           {"tools/call"},
				"Mcp-Name":             {"test_x_mcp_header"},
			}
			if region != "" {
				r.Header["Mcp-Param-Region"] = []string{region}
			}
		}
	}
	args := map[string]any{"name": "test_x_mcp_header", "arguments": map[string]any{"region": "Hello"}}
	if c := content(t, f.result(f.call("tools/call", args, nil, headers("=?base64?SGVsbG8=?=")))); c[0]["text"] != "Region: Hello" {
		t.Errorf("base64 header: %v", c)
	}
	for _, bad := range []string{"", "Goodbye", "=?base64?SGVsbG8?="} {
		if fr := f.call("tools/call", args, nil, headers(bad)); fr.Error == nil || fr.Error.Code != -32020 {
			t.Errorf("Mcp-Param-Region %q: %s, want -32020", bad, fr.Raw)
		}
	}
}

// inputRequests returns the keys and methods of an input_required result.
func inputRequests(t *testing.T, res map[string]any) map[string]string {
	t.Helper()
	if res["resultType"] != "input_required" {
		t.Fatalf("resultType %v, want input_required: %v", res["resultType"], res)
	}
	out := map[string]string{}
	for k, v := range res["inputRequests"].(map[string]any) {
		out[k] = v.(map[string]any)["method"].(string)
	}
	return out
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

func sampled(text string) map[string]any {
	return map[string]any{"role": "assistant", "model": "test-model", "content": map[string]any{"type": "text", "text": text}}
}

var noRoots = map[string]any{"roots": []any{map[string]any{"uri": "file:///project", "name": "project"}}}

// retry calls a tool again, with the same empty arguments as the suite,
// adding answers and the echoed state.
func (f *fixture) retry(name string, first map[string]any, answers map[string]any) map[string]any {
	f.t.Helper()
	return f.retryWith(name, map[string]any{}, first, answers)
}

func (f *fixture) retryWith(name string, args, first, answers map[string]any) map[string]any {
	f.t.Helper()
	params := map[string]any{"name": name, "arguments": args, "inputResponses": answers}
	if s, ok := first["requestState"]; ok {
		params["requestState"] = s
	}
	return f.result(f.call("tools/call", params, caps, nil))
}

func TestMultiRoundTripTools(t *testing.T) {
	f := newFixture(t)
	first := f.tool("test_input_required_result_elicitation", map[string]any{}, caps)
	if got := inputRequests(t, first); got["user_name"] != "elicitation/create" || len(got) != 1 {
		t.Fatalf("elicitation round 1: %v", got)
	}
	if c := content(t, f.retry("test_input_required_result_elicitation", first, map[string]any{"user_name": accept(map[string]any{"name": "Alice"})})); c[0]["text"] != "Hello, Alice!" {
		t.Errorf("elicitation round 2: %v", c)
	}
	extra := map[string]any{"user_name": accept(map[string]any{"name": "Alice"}), "unknown_extra_key": accept(map[string]any{"foo": "bar"})}
	content(t, f.retry("test_input_required_result_elicitation", first, extra))
	if got := inputRequests(t, f.retry("test_input_required_result_elicitation", first, map[string]any{"wrong_key": accept(map[string]any{"data": "x"})})); got["user_name"] == "" {
		t.Errorf("a wrong key should ask again: %v", got)
	}
	for _, bad := range []any{12345, nil} {
		var answers any = map[string]any{"user_name": bad}
		if bad == nil {
			answers = nil
		}
		params := map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}, "inputResponses": answers}
		if fr := f.call("tools/call", params, caps, nil); fr.Error == nil || fr.Error.Code != -32602 {
			t.Errorf("inputResponses %v: %s, want -32602", answers, fr.Raw)
		}
	}

	first = f.tool("test_input_required_result_sampling", map[string]any{}, caps)
	if got := inputRequests(t, first); got["capital_question"] != "sampling/createMessage" {
		t.Fatalf("sampling round 1: %v", got)
	}
	if c := content(t, f.retry("test_input_required_result_sampling", first, map[string]any{"capital_question": sampled("Paris")})); !strings.Contains(c[0]["text"].(string), "Paris") {
		t.Errorf("sampling round 2: %v", c)
	}

	first = f.tool("test_input_required_result_list_roots", map[string]any{}, caps)
	if got := inputRequests(t, first); got["client_roots"] != "roots/list" {
		t.Fatalf("roots round 1: %v", got)
	}
	if c := content(t, f.retry("test_input_required_result_list_roots", first, map[string]any{"client_roots": noRoots})); !strings.Contains(c[0]["text"].(string), "file:///project") {
		t.Errorf("roots round 2: %v", c)
	}

	first = f.tool("test_input_required_result_request_state", map[string]any{}, caps)
	if _, ok := first["requestState"].(string); !ok {
		t.Fatalf("request state round 1 has no requestState: %v", first)
	}
	key := onlyKey(t, inputRequests(t, first))
	if c := content(t, f.retry("test_input_required_result_request_state", first, map[string]any{key: accept(map[string]any{"ok": true})})); !strings.Contains(c[0]["text"].(string), "state-ok") {
		t.Errorf("request state round 2: %v", c)
	}

	first = f.tool("test_input_required_result_multiple_inputs", map[string]any{}, caps)
	methods := inputRequests(t, first)
	answers := map[string]any{}
	for k, m := range methods {
		switch m {
		case "elicitation/create":
			answers[k] = accept(map[string]any{"name": "Alice"})
		case "sampling/createMessage":
			answers[k] = sampled("Hi!")
		case "roots/list":
			answers[k] = noRoots
		}
	}
	if len(methods) < 3 || first["requestState"] == nil {
		t.Fatalf("multiple inputs round 1: %v", first)
	}
	content(t, f.retry("test_input_required_result_multiple_inputs", first, answers))
}

func onlyKey(t *testing.T, m map[string]string) string {
	t.Helper()
	if len(m) != 1 {
		t.Fatalf("want one input request, got %v", m)
	}
	for k := range m {
		return k
	}
	return ""
}

func TestMultiRoundStateChangesEachRound(t *testing.T) {
	f := newFixture(t)
	const tool = "test_input_required_result_multi_round"
	r1 := f.tool(tool, map[string]any{}, caps)
	r2 := f.retry(tool, r1, map[string]any{onlyKey(t, inputRequests(t, r1)): accept(map[string]any{"name": "Alice"})})
	if inputRequests(t, r2)["step2"] == "" || r2["requestState"] == r1["requestState"] || r2["requestState"] == nil {
		t.Fatalf("round 2 must ask step2 with a new requestState: %v", r2)
	}
	r3 := f.retry(tool, r2, map[string]any{"step2": accept(map[string]any{"color": "blue"})})
	if c := content(t, r3); c[0]["text"] != "Alice likes blue" {
		t.Errorf("round 3: %v", c)
	}
}

func TestTamperedStateIsRefused(t *testing.T) {
	f := newFixture(t)
	const tool = "test_input_required_result_tampered_state"
	first := f.tool(tool, map[string]any{}, caps)
	key := onlyKey(t, inputRequests(t, first))
	params := map[string]any{"name": tool, "arguments": map[string]any{}, "inputResponses": map[string]any{key: accept(map[string]any{"ok": true})},
		"requestState": first["requestState"].(string) + "-TAMPERED"}
	if fr := f.call("tools/call", params, caps, nil); fr.Error == nil || fr.Error.Code != -32602 {
		t.Errorf("tampered state: %s, want -32602", fr.Raw)
	}
	content(t, f.retry(tool, first, map[string]any{key: accept(map[string]any{"ok": true})}))
}

func TestCapabilitiesToolAsksOnlyForDeclaredInput(t *testing.T) {
	f := newFixture(t)
	got := inputRequests(t, f.tool("test_input_required_result_capabilities", map[string]any{}, map[string]any{"sampling": map[string]any{}}))
	if len(got) != 1 || got["greeting"] != "sampling/createMessage" {
		t.Errorf("sampling only: %v", got)
	}
	if got := inputRequests(t, f.tool("test_input_required_result_capabilities", map[string]any{}, caps)); len(got) != 3 {
		t.Errorf("all declared: %v", got)
	}
}

// The tools of the initialize-era scenarios ask through input requests,
// which 2026-07-28 clients answer by retrying.
func TestSamplingAndElicitationTools(t *testing.T) {
	f := newFixture(t)
	sayHi := map[string]any{"prompt": "Say hi"}
	first := f.tool("test_sampling", sayHi, caps)
	if inputRequests(t, first)["sampling"] != "sampling/createMessage" {
		t.Fatalf("test_sampling: %v", first)
	}
	if c := content(t, f.retryWith("test_sampling", sayHi, first, map[string]any{"sampling": sampled("hi")})); c[0]["text"] != "LLM response: hi" {
		t.Errorf("test_sampling retry: %v", c)
	}
	for _, tc := range []struct{ tool, key string }{
		{"test_elicitation", "elicitation"}, {"test_elicitation_sep1034_defaults", "defaults"}, {"test_elicitation_sep1330_enums", "enums"},
	} {
		args := map[string]any{}
		if tc.tool == "test_elicitation" {
			args["message"] = "Who are you?"
		}
		first := f.tool(tc.tool, args, caps)
		if inputRequests(t, first)[tc.key] != "elicitation/create" {
			t.Fatalf("%s: %v", tc.tool, first)
		}
		params := map[string]any{"name": tc.tool, "arguments": args, "inputResponses": map[string]any{tc.key: accept(map[string]any{"name": "Ada"})}}
		if c := content(t, f.result(f.call("tools/call", params, caps, nil))); !strings.Contains(c[0]["text"].(string), "action=accept") {
			t.Errorf("%s retry: %v", tc.tool, c)
		}
	}
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	read := func(uri string) map[string]any {
		res := f.result(f.call("resources/read", map[string]any{"uri": uri}, nil, nil))
		return res["contents"].([]any)[0].(map[string]any)
	}
	if c := read("test://static-text"); c["text"] != staticText || c["mimeType"] != "text/plain" {
		t.Errorf("static text: %v", c)
	}
	if c := read("test://static-binary"); c["blob"] == nil || c["mimeType"] != "image/png" {
		t.Errorf("static binary: %v", c)
	}
	if c := read("test://template/123/data"); !strings.Contains(c["text"].(string), "123") {
		t.Errorf("template: %v", c)
	}
	fr := f.call("resources/read", map[string]any{"uri": "test://nonexistent-resource-for-conformance-testing"}, nil, nil)
	if fr.Error == nil || fr.Error.Code != -32602 || !strings.Contains(string(fr.Error.Data), "nonexistent") {
		t.Errorf("unknown resource: %s", fr.Raw)
	}
}

func TestPromptsAndCompletion(t *testing.T) {
	f := newFixture(t)
	get := func(name string, args map[string]any) []map[string]any {
		params := map[string]any{"name": name}
		if args != nil {
			params["arguments"] = args
		}
		res := f.result(f.call("prompts/get", params, nil, nil))
		var out []map[string]any
		for _, m := range res["messages"].([]any) {
			out = append(out, m.(map[string]any)["content"].(map[string]any))
		}
		return out
	}
	if m := get("test_simple_prompt", nil); len(m) != 1 || m[0]["type"] != "text" {
		t.Errorf("simple prompt: %v", m)
	}
	if m := get("test_prompt_with_arguments", map[string]any{"arg1": "alpha", "arg2": "beta"}); !strings.Contains(m[0]["text"].(string), "alpha") || !strings.Contains(m[0]["text"].(string), "beta") {
		t.Errorf("prompt with arguments: %v", m)
	}
	if m := get("test_prompt_with_embedded_resource", map[string]any{"resourceUri": "test://example"}); m[0]["type"] != "resource" || m[0]["resource"].(map[string]any)["uri"] != "test://example" {
		t.Errorf("embedded resource prompt: %v", m)
	}
	if m := get("test_prompt_with_image", nil); m[0]["type"] != "image" || m[0]["mimeType"] != "image/png" {
		t.Errorf("image prompt: %v", m)
	}
	res := f.result(f.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
		"argument": map[string]any{"name": "arg1", "value": "par"},
	}, nil, nil))
	values := res["completion"].(map[string]any)["values"].([]any)
	if !slices.Equal(values, []any{"paris", "park", "party"}) {
		t.Errorf("completion values %v", values)
	}

	first := f.result(f.call("prompts/get", map[string]any{"name": "test_input_required_result_prompt"}, caps, nil))
	if inputRequests(t, first)["user_context"] != "elicitation/create" {
		t.Fatalf("prompt round 1: %v", first)
	}
	second := f.result(f.call("prompts/get", map[string]any{"name": "test_input_required_result_prompt",
		"inputResponses": map[string]any{"user_context": accept(map[string]any{"context": "test context"})}}, caps, nil))
	if second["resultType"] != "complete" || len(second["messages"].([]any)) == 0 {
		t.Errorf("prompt round 2: %v", second)
	}
}

// The trigger tools change the lists for real, so listen streams and
// initialize-era sessions get the list changes the fixture advertises.
func TestTriggersChangeTheLists(t *testing.T) {
	f := newFixture(t)
	caps := f.result(f.call("server/discover", nil, nil, nil))["capabilities"].(map[string]any)
	if caps["tools"].(map[string]any)["listChanged"] != true || caps["prompts"].(map[string]any)["listChanged"] != true {
		t.Fatalf("list changes not advertised: %v", caps)
	}
	has := func(method, key, name string) bool {
		return slices.Contains(names(f.result(f.call(method, nil, nil, nil))[key].([]any), "name"), name)
	}
	for _, c := range []struct{ trigger, method, key, name string }{
		{"test_trigger_tool_change", "tools/list", "tools", "test_dynamic_tool"},
		{"test_trigger_prompt_change", "prompts/list", "prompts", "test_dynamic_prompt"},
	} {
		for _, want := range []bool{true, false} {
			f.tool(c.trigger, nil, nil)
			if got := has(c.method, c.key, c.name); got != want {
				t.Fatalf("after %s: %s listed = %v, want %v", c.trigger, c.name, got, want)
			}
		}
	}
}

// Without its hub (-subscriptions=false) the fixture advertises no list
// changes and has no subscriptions/listen.
func TestWithoutSubscriptions(t *testing.T) {
	rt, _, err := newRuntimeWith(testLogger(t), false)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, rt: rt}
	caps := f.result(f.call("server/discover", nil, nil, nil))["capabilities"].(map[string]any)
	if _, ok := caps["tools"].(map[string]any)["listChanged"]; ok {
		t.Fatalf("list changes advertised without a hub: %v", caps)
	}
	if fr := f.call("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil, nil); fr.Error == nil || fr.Error.Code != -32601 {
		t.Fatalf("subscriptions/listen without a hub: %s", fr.Raw)
	}
}

// The served fixture reports changes of the watched resource to its
// subscribers.
func TestWatchedResourceChanges(t *testing.T) {
	_, hub, err := newRuntimeWith(testLogger(t), true)
	if err != nil {
		t.Fatal(err)
	}
	woken := make(chan struct{}, 1)
	l := hub.Attach(mcp.SubscriptionFilter{ResourceSubscriptions: []string{watchedURI}}, func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	if _, err := l.Next(); err == nil {
		t.Fatal("an event before any change")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); updateWatched(ctx, hub, time.Millisecond) }()
	<-woken
	cancel()
	<-done
	ev, err := l.Next()
	if err != nil || ev.Kind != dispatch.EventResourceUpdated || ev.URI != watchedURI {
		t.Fatalf("event %+v, %v", ev, err)
	}
}
