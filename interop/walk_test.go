package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// callTimeout bounds one client call (generous: it only bounds a
// failure, and the machine may be loaded).
const callTimeout = 60 * time.Second

// walk is one client connected to one server: the checks run against it
// in order.
type walk struct {
	s         session
	client    string // go-sdk, mcp-go, ...
	requested string // the client's mode: "" for its default, a pinned version, "auto"
	want      string // the version the mode should negotiate
	version   string // the version it negotiated
	target    serverTarget
}

// legacy reports whether the walk speaks an initialize-era revision.
func (w *walk) legacy() bool { return w.version != v20260728 }

// stateless reports whether requests of this walk share no connection:
// 2026-07-28 over HTTP.
func (w *walk) stateless() bool { return w.target.lane != laneStdio && !w.legacy() }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// check is one step of the walk.
type check struct {
	name string
	run  func(t *testing.T, w *walk)
}

// fixtureChecks walk examples/everything through every feature.
var fixtureChecks = []check{
	{"handshake", checkHandshake("snodo-everything")},
	{"ping", checkPing},
	{"content", checkContent},
	{"structured-output", checkStructured},
	{"errors", checkErrors},
	{"progress", checkProgress},
	{"logging", checkLogging},
	{"elicitation-form", checkElicitationForm},
	{"elicitation-url", checkElicitationURL},
	{"sampling", checkSampling},
	{"roots", checkRoots},
	{"resources", checkResources},
	{"resource-subscription", checkResourceSubscription},
	{"list-changed", checkListChanged},
	{"prompts", checkPrompts},
	{"completion", checkCompletion},
	{"pagination", checkPagination},
	{"concurrency", checkConcurrency},
	{"cancellation", checkCancellation},
}

// quickstartChecks walk examples/quickstart, a stdio server with three
// tools.
var quickstartChecks = []check{
	{"handshake", checkHandshake("quickstart")},
	{"ping", checkPing},
	{"tools", checkQuickstartTools},
	{"concurrency", checkConcurrency},
	{"cancellation", checkCancellation},
}

// clientSpec is a client under test.
type clientSpec struct {
	name           string
	connect        func(t *testing.T, target serverTarget, mode string) session
	defaultVersion string   // what its default mode negotiates
	modes          []string // "" (default), pinned versions, "auto"
}

// wantVersion is what a mode should negotiate.
func (c clientSpec) wantVersion(mode string) string {
	switch mode {
	case "":
		return c.defaultVersion
	case "auto":
		return v20260728
	}
	return mode
}

// runWalk connects a client and runs the checks, then closes the client
// cleanly ("close" is the last check).
func runWalk(t *testing.T, c clientSpec, target serverTarget, mode string, checks []check) {
	t.Helper()
	s := c.connect(t, target, mode)
	w := &walk{s: s, client: c.name, requested: mode, want: c.wantVersion(mode), target: target}
	w.version, _ = s.Negotiated()
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = s.Close()
		}
	})
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, w) })
	}
	t.Run("close", func(t *testing.T) {
		closed = true
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	})
}

func checkHandshake(server string) func(*testing.T, *walk) {
	return func(t *testing.T, w *walk) {
		version, name := w.s.Negotiated()
		if version != w.want {
			t.Errorf("negotiated %q, want %q", version, w.want)
		}
		if name != server {
			t.Errorf("server name %q, want %q", name, server)
		}
	}
}

func checkPing(t *testing.T, w *walk) {
	err := w.s.Ping(ctxT(t))
	if w.client == "ts-client-v2" && !w.legacy() {
		// @modelcontextprotocol/client 2.4.0 refuses ping itself on a
		// 2026-07-28 connection ("Method 'ping' is not supported by the
		// negotiated protocol version"), and sends nothing.
		if err == nil || len(w.s.Frames().sentRequests("ping")) != 0 {
			t.Fatalf("ts-client-v2 on 2026-07-28: ping %v, %d sent", err, len(w.s.Frames().sentRequests("ping")))
		}
		return
	}
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	sent := len(w.s.Frames().sentRequests("ping"))
	if w.client == "mcp-go" && !w.legacy() {
		// mcp-go v1.2.1 sends nothing for Ping on a 2026-07-28 connection
		// (client/client.go Ping: "if c.isModern() { return nil }").
		if sent != 0 {
			t.Fatalf("mcp-go sent %d pings on a 2026-07-28 connection", sent)
		}
		return
	}
	if sent != 1 {
		t.Fatalf("%d pings sent", sent)
	}
}

func call(t *testing.T, w *walk, name string, args map[string]any) *toolResult {
	t.Helper()
	res, err := w.s.CallTool(ctxT(t), name, args, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func checkContent(t *testing.T, w *walk) {
	if got := call(t, w, "test_simple_text", nil).text(); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %q", got)
	}
	types := func(r *toolResult) []string {
		var out []string
		for _, b := range r.Content {
			out = append(out, b.Type)
		}
		return out
	}
	img := call(t, w, "test_image_content", nil)
	if len(img.Content) != 1 || img.Content[0].Type != "image" || img.Content[0].MIMEType != "image/png" || img.Content[0].Data == "" {
		t.Errorf("test_image_content: %+v", img.Content)
	}
	audio := call(t, w, "test_audio_content", nil)
	if len(audio.Content) != 1 || audio.Content[0].Type != "audio" || audio.Content[0].MIMEType != "audio/wav" || audio.Content[0].Data == "" {
		t.Errorf("test_audio_content: %+v", audio.Content)
	}
	emb := call(t, w, "test_embedded_resource", nil)
	if len(emb.Content) != 1 || emb.Content[0].Type != "resource" || emb.Content[0].URI != "test://embedded-resource" || emb.Content[0].Text != "This is an embedded resource content." {
		t.Errorf("test_embedded_resource: %+v", emb.Content)
	}
	if got := types(call(t, w, "test_multiple_content_types", nil)); !slices.Equal(got, []string{"text", "image", "resource"}) {
		t.Errorf("test_multiple_content_types: %v", got)
	}
	link := call(t, w, "test_resource_link", nil)
	if len(link.Content) != 1 || link.Content[0].Type != "resource_link" || link.Content[0].URI != "test://static-text" {
		t.Errorf("test_resource_link: %+v", link.Content)
	}
}

func checkStructured(t *testing.T, w *walk) {
	res := call(t, w, "test_structured_output", map[string]any{"city": "Paris"})
	got, _ := json.Marshal(res.Structured)
	if string(got) != `{"city":"Paris","temperature":21.5,"unit":"celsius"}` {
		t.Errorf("structuredContent %s", got)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(res.text()), &fromText); err != nil || fromText["city"] != "Paris" {
		t.Errorf("the text block is not the same JSON: %q (%v)", res.text(), err)
	}
}

func checkErrors(t *testing.T, w *walk) {
	res := call(t, w, "test_error_handling", nil)
	if !res.IsError || !strings.Contains(res.text(), "intentionally returns an error") {
		t.Errorf("test_error_handling: %+v", res)
	}
	bad := call(t, w, "echo", map[string]any{"text": 5})
	if !bad.IsError || !strings.Contains(bad.text(), "text") {
		t.Errorf("echo with a number: %+v", bad)
	}
	_, err := w.s.CallTool(ctxT(t), "no_such_tool", nil, false)
	if code := errorCode(err); code != -32602 {
		t.Errorf("unknown tool: %v (code %d, want -32602)", err, code)
	}
}

func checkProgress(t *testing.T, w *walk) {
	before := w.s.Events().count(method("notifications/progress"))
	res, err := w.s.CallTool(ctxT(t), "test_tool_with_progress", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.text() != "Progress test completed" {
		t.Errorf("result %q", res.text())
	}
	// On the wire: the three notifications, in order, before the response.
	var wire []float64
	for _, m := range w.s.Frames().received(w.s.Frames().lastSent("tools/call", "test_tool_with_progress")) {
		if m.Method == "notifications/progress" {
			var p struct{ Progress float64 }
			_ = json.Unmarshal(m.Params, &p)
			wire = append(wire, p.Progress)
		}
	}
	if n := len(wire); n < 3 || !slices.Equal(wire[n-3:], []float64{0, 50, 100}) {
		t.Fatalf("progress on the wire before the response: %v", wire)
	}
	if strings.HasPrefix(w.client, "ts-") {
		// Both TypeScript SDKs (client 2.4.0, sdk 1.32.2) run notification
		// handlers a microtask later (Protocol._onnotification:
		// Promise.resolve().then) but drop the progress handler as soon as
		// the response is read (_onresponse), so a last notification read
		// together with the response is lost ("unknown token"). The wire
		// is checked above.
		if got := w.s.Events().count(method("notifications/progress")) - before; got < 2 {
			t.Fatalf("%s handed %d progress notifications to its handler", w.client, got)
		}
		return
	}
	// Each progress notification is written before the response, so all
	// three are in by the time the call returns; the wait only absorbs a
	// client that hands notifications to its handler on another goroutine.
	if err := w.s.Events().wait(5*time.Second, before+3, method("notifications/progress")); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, ev := range w.s.Events().snapshot() {
		if ev.Method == "notifications/progress" {
			got = append(got, ev.Progress)
		}
	}
	if !slices.Equal(got[before:], []float64{0, 50, 100}) {
		t.Errorf("progress %v, want [0 50 100]", got[before:])
	}
}

func checkLogging(t *testing.T, w *walk) {
	err := w.s.SetLogLevel(ctxT(t), "debug")
	if w.stateless() && len(w.s.Frames().sentRequests("logging/setLevel")) > 0 {
		// A level set with logging/setLevel has to live on a connection;
		// stateless HTTP has none, so the server refuses it plainly. A
		// client that puts the level in each request's _meta instead
		// (mcp-go) is served below.
		if err == nil {
			t.Fatal("logging/setLevel over stateless HTTP succeeded; it has nowhere to keep the level")
		}
		if code := errorCode(err); code != -32601 {
			t.Fatalf("logging/setLevel over stateless HTTP: %v (code %d, want -32601)", err, code)
		}
		return
	}
	if err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	match := func(ev event) bool {
		return ev.Method == "notifications/message" && ev.Level == "info" &&
			(strings.Contains(ev.Data, "Tool execution") || strings.Contains(ev.Data, "Tool processing"))
	}
	before := w.s.Events().count(match)
	if got := call(t, w, "test_tool_with_logging", nil).text(); got != "Logging test completed" {
		t.Errorf("result %q", got)
	}
	if err := w.s.Events().wait(5*time.Second, before+3, match); err != nil {
		t.Fatal(err)
	}
}

func checkElicitationForm(t *testing.T, w *walk) {
	got := call(t, w, "test_elicitation", map[string]any{"message": "Who are you?"}).text()
	if got != `User response: action=accept, content={"email":"ada@example.com","username":"Ada"}` {
		t.Errorf("test_elicitation: %q", got)
	}
}

func checkElicitationURL(t *testing.T, w *walk) {
	res, err := w.s.CallTool(ctxT(t), "test_url_elicitation", nil, false)
	if w.version == v20250618 {
		// 2025-06-18 has no URL mode: the server cannot ask, and says why.
		if code := errorCode(err); code != -32021 {
			t.Fatalf("URL elicitation at 2025-06-18: %+v, %v (code %d, want -32021)", res, err, code)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := res.text(); got != "URL elicitation: action=accept" {
		t.Errorf("test_url_elicitation: %q", got)
	}
}

func checkSampling(t *testing.T, w *walk) {
	if got := call(t, w, "test_sampling", map[string]any{"prompt": "Say hello"}).text(); got != "LLM response: "+samplingAnswer {
		t.Errorf("test_sampling: %q", got)
	}
}

func checkRoots(t *testing.T, w *walk) {
	if got := call(t, w, "test_input_required_result_list_roots", nil).text(); got != "Client roots: "+rootURI {
		t.Errorf("roots: %q", got)
	}
}

// allPages follows cursors from the first page.
func allPages(t *testing.T, list func(context.Context, string) (page, error)) (names []string, pages int) {
	t.Helper()
	cursor := ""
	for {
		p, err := list(ctxT(t), cursor)
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		names = append(names, p.Names...)
		pages++
		if p.Next == "" {
			return names, pages
		}
		if pages > 100 {
			t.Fatal("more than 100 pages")
		}
		cursor = p.Next
	}
}

func checkResources(t *testing.T, w *walk) {
	uris, _ := allPages(t, w.s.ListResources)
	for _, want := range []string{"test://static-text", "test://static-binary", "test://watched-resource"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	templates, _ := allPages(t, w.s.ListTemplates)
	if !slices.Contains(templates, "test://template/{id}/data") {
		t.Errorf("resources/templates/list: %v", templates)
	}
	text, err := w.s.ReadResource(ctxT(t), "test://static-text")
	if err != nil || len(text) != 1 || text[0].Text != "This is the content of the static text resource." {
		t.Errorf("read static-text: %+v, %v", text, err)
	}
	blob, err := w.s.ReadResource(ctxT(t), "test://static-binary")
	if err != nil || len(blob) != 1 || blob[0].Blob == "" || blob[0].MIMEType != "image/png" {
		t.Errorf("read static-binary: %+v, %v", blob, err)
	}
	tmpl, err := w.s.ReadResource(ctxT(t), "test://template/42/data")
	if err != nil || len(tmpl) != 1 || !strings.Contains(tmpl[0].Text, `"id":"42"`) {
		t.Errorf("read template: %+v, %v", tmpl, err)
	}
	_, err = w.s.ReadResource(ctxT(t), "test://no-such-resource")
	want := int64(-32002) // the initialize era's "resource not found"
	if !w.legacy() {
		want = -32602
	}
	// The code on the wire: @modelcontextprotocol/client 2.4.0 surfaces
	// -32002 as its own ResourceNotFoundError with code -32602.
	if code := w.s.Frames().wireErrorCode(w.s.Frames().lastSent("resources/read", "no-such-resource")); err == nil || code != want {
		t.Errorf("unknown resource: %v (code %d on the wire, want %d)", err, code, want)
	}
}

// watchedTimeout covers two periods of the fixture's 3 s updates of
// test://watched-resource.
const watchedTimeout = 8 * time.Second

func checkResourceSubscription(t *testing.T, w *walk) {
	updated := func(ev event) bool {
		return ev.Method == "notifications/resources/updated" && ev.URI == "test://watched-resource"
	}
	before := w.s.Events().count(updated)
	if err := w.s.Subscribe(ctxT(t), "test://watched-resource"); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if err := w.s.Events().wait(watchedTimeout, before+1, updated); err != nil {
		t.Fatal(err)
	}
	if err := w.s.Unsubscribe(ctxT(t), "test://watched-resource"); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
}

func checkListChanged(t *testing.T, w *walk) {
	changed := method("notifications/tools/list_changed")
	before := w.s.Events().count(changed)
	if got := call(t, w, "test_trigger_tool_change", nil).text(); got != "Added test_dynamic_tool." {
		t.Fatalf("trigger: %q", got)
	}
	t.Cleanup(func() { _, _ = w.s.CallTool(context.Background(), "test_trigger_tool_change", nil, false) })
	if err := w.s.Events().wait(5*time.Second, before+1, changed); err != nil {
		t.Fatal(err)
	}
	names, err := w.s.AllTools(ctxT(t))
	if err != nil || !slices.Contains(names, "test_dynamic_tool") {
		t.Fatalf("after the change: %v, %v", names, err)
	}
}

func checkPrompts(t *testing.T, w *walk) {
	names, _ := allPages(t, w.s.ListPrompts)
	for _, want := range []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_image"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompts/list lacks %s: %v", want, names)
		}
	}
	msgs, err := w.s.GetPrompt(ctxT(t), "test_prompt_with_arguments", map[string]string{"arg1": "alpha", "arg2": "beta"})
	if err != nil || len(msgs) != 1 || msgs[0].Text != "Prompt with arguments: arg1='alpha', arg2='beta'" {
		t.Errorf("prompt with arguments: %+v, %v", msgs, err)
	}
	img, err := w.s.GetPrompt(ctxT(t), "test_prompt_with_image", nil)
	if err != nil || len(img) != 2 || img[0].Type != "image" || img[0].MIMEType != "image/png" {
		t.Errorf("prompt with image: %+v, %v", img, err)
	}
	emb, err := w.s.GetPrompt(ctxT(t), "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://static-text"})
	if err != nil || len(emb) != 2 || emb[0].Type != "resource" || emb[0].URI != "test://static-text" {
		t.Errorf("prompt with embedded resource: %+v, %v", emb, err)
	}
	_, err = w.s.GetPrompt(ctxT(t), "test_prompt_with_arguments", map[string]string{"arg1": "alpha"})
	if code := errorCode(err); code != -32602 {
		t.Errorf("missing argument: %v (code %d, want -32602)", err, code)
	}
}

func checkCompletion(t *testing.T, w *walk) {
	values, err := w.s.Complete(ctxT(t), "test_prompt_with_arguments", "arg1", "pa")
	if err != nil || !slices.Equal(values, []string{"paris", "park", "party"}) {
		t.Errorf("completion: %v, %v", values, err)
	}
}

func checkPagination(t *testing.T, w *walk) {
	first, err := w.s.ListTools(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Names) != 4 || first.Next == "" {
		t.Fatalf("first page: %d tools, next cursor %q (the fixture serves pages of 4)", len(first.Names), first.Next)
	}
	paged, pages := allPages(t, w.s.ListTools)
	all, err := w.s.AllTools(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paged, all) || pages < 2 {
		t.Errorf("%d pages by cursor: %v\nthe client's own listing: %v", pages, paged, all)
	}
	if len(all) != len(slices.Compact(slices.Sorted(slices.Values(all)))) {
		t.Errorf("a tool appears twice: %v", all)
	}
	_, err = w.s.ListTools(ctxT(t), "not-a-cursor")
	if code := errorCode(err); code != -32602 {
		t.Errorf("a made-up cursor: %v (code %d, want -32602)", err, code)
	}
}

// checkConcurrency: a fast call answers while a slow one is running.
func checkConcurrency(t *testing.T, w *walk) {
	slow := make(chan error, 1)
	go func() {
		_, err := w.s.CallTool(ctxT(t), "sleep", map[string]any{"ms": 1500}, false)
		slow <- err
	}()
	if err := w.s.Frames().waitSent(5*time.Second, 1, "tools/call", `"ms":1500`); err != nil {
		t.Fatal(err)
	}
	if got := call(t, w, "echo", map[string]any{"text": "fast"}).text(); got != "fast" {
		t.Errorf("echo: %q", got)
	}
	select {
	case err := <-slow:
		t.Fatalf("the slow call ended before the fast one: %v", err)
	default:
	}
	if err := <-slow; err != nil {
		t.Fatalf("slow call: %v", err)
	}
}

// cancelled is more calls than the fixture's 32 execution slots: if a
// cancelled call kept its slot, the call after them would wait a minute.
const cancelled = 40

// checkCancellation cancels calls that would run for a minute: none
// answers late, and their slots are free at once.
func checkCancellation(t *testing.T, w *walk) {
	var wg sync.WaitGroup
	errs := make([]error, cancelled)
	for i := range cancelled {
		ctx, cancel := context.WithCancel(context.Background())
		wg.Go(func() {
			_, errs[i] = w.s.CallTool(ctx, "sleep", map[string]any{"ms": 60000}, false)
		})
		if err := w.s.Frames().waitSent(5*time.Second, i+1, "tools/call", `"ms":60000`); err != nil {
			cancel()
			wg.Wait()
			t.Fatal(err)
		}
		cancel()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Fatalf("cancelled call %d succeeded", i)
		}
	}
	// Half the cancelled calls' duration: a call queued behind slots that
	// were never freed would not be answered in time.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := w.s.CallTool(ctx, "echo", map[string]any{"text": "after"}, false)
	if err != nil || res.text() != "after" {
		t.Fatalf("a call after %d cancelled ones: %+v, %v (their slots were not freed)", cancelled, res, err)
	}
	for _, id := range w.s.Frames().sentRequests("tools/call", `"ms":60000`) {
		if late := w.s.Frames().responsesTo(id); len(late) > 0 {
			t.Errorf("cancelled request %s was answered: %s", id, late)
		}
	}
}

func checkQuickstartTools(t *testing.T, w *walk) {
	names, err := w.s.AllTools(ctxT(t))
	if err != nil || !slices.Equal(slices.Sorted(slices.Values(names)), []string{"echo", "sleep", "upper"}) {
		t.Fatalf("tools: %v, %v", names, err)
	}
	if got := call(t, w, "upper", map[string]any{"text": "hello"}).text(); got != "HELLO" {
		t.Errorf("upper: %q", got)
	}
	bad := call(t, w, "echo", map[string]any{})
	if !bad.IsError {
		t.Errorf("echo without text: %+v", bad)
	}
}

func modeName(m string) string {
	if m == "" {
		return "default"
	}
	return m
}

// runMatrix walks the fixture on every lane in every mode of a client
// (HTTP with sessions unless the mode speaks 2026-07-28), and the
// quickstart on stdio.
func runMatrix(t *testing.T, c clientSpec) {
	for _, lane := range lanes {
		for _, mode := range c.modes {
			t.Run(fmt.Sprintf("everything/%s/%s", lane, modeName(mode)), func(t *testing.T) {
				t.Parallel()
				target := targetFor(t, bin.everything, lane, c.wantVersion(mode) != v20260728, fixtureArgs...)
				runWalk(t, c, target, mode, fixtureChecks)
			})
		}
	}
	for _, mode := range c.modes {
		t.Run("quickstart/stdio/"+modeName(mode), func(t *testing.T) {
			t.Parallel()
			runWalk(t, c, targetFor(t, bin.quickstart, laneStdio, false), mode, quickstartChecks)
		})
	}
}

// goModes are the Go clients' default mode (2026-07-28) and the
// initialize-era pins.
var goModes = []string{"", v20251125, v20250618}

func TestGoSDK(t *testing.T) {
	t.Parallel()
	runMatrix(t, clientSpec{name: "go-sdk", connect: connectGoSDK, defaultVersion: v20260728, modes: goModes})
}
