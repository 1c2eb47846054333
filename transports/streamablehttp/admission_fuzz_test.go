package streamablehttp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// The admission oracles below parse what they check by hand, without
// net/url or the transport's helpers, so that a disagreement between two
// parsers (the way a rebinding or header-smuggling bypass usually starts)
// shows up as a failure.

var loopbackNames = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// splitHostPort splits "host", "host:port", "[v6]" and "[v6]:port"; ok is
// false when the form is none of these.
func splitHostPort(s string) (host, port string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest := s[1:end], s[end+1:]
		switch {
		case rest == "":
			return host, "", true
		case rest[0] == ':':
			return host, rest[1:], true
		}
		return "", "", false
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if strings.Count(s, ":") > 1 {
			return s, "", true // a bare IPv6 address
		}
		return s[:i], s[i+1:], true
	}
	return s, "", true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isLoopbackName(host string) bool {
	return loopbackNames[strings.ToLower(strings.TrimSuffix(host, "."))]
}

// originIsLoopback reports whether an Origin value names a loopback host
// with no userinfo, reading it as scheme "://" authority [path].
func originIsLoopback(v string) bool {
	v = strings.TrimSpace(v)
	i := strings.Index(v, "://")
	if i <= 0 {
		return false
	}
	rest := v[i+3:]
	if end := strings.IndexAny(rest, "/?#\\"); end >= 0 {
		rest = rest[:end]
	}
	if strings.ContainsAny(rest, "@%") {
		return false
	}
	host, port, ok := splitHostPort(rest)
	return ok && allDigits(port) && isLoopbackName(host)
}

// hostIsLoopback reports whether a Host header names a loopback host.
// The port is not judged: the rule is about names (a rebinding page
// sends its own), and a malformed port names no other host.
func hostIsLoopback(v string) bool {
	host, _, ok := splitHostPort(v)
	return ok && isLoopbackName(host)
}

// headerBlock renders headers as the fuzzer's header text: one "Name:
// value" per line.
func headerBlock(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

// parseHeaderBlock reads the fuzzer's header text. A line starting with
// '~' keeps its name as written; other names are canonicalised, as
// Request.Header requires.
func parseHeaderBlock(s string) http.Header {
	h := http.Header{}
	for line := range strings.SplitSeq(s, "\n") {
		raw := strings.HasPrefix(line, "~")
		line = strings.TrimPrefix(line, "~")
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			continue
		}
		if !raw {
			name = textproto.CanonicalMIMEHeaderKey(name)
		}
		h[name] = append(h[name], strings.TrimPrefix(value, " "))
	}
	return h
}

// valuesOf returns every value of a header, names compared without case.
func valuesOf(h http.Header, name string) []string {
	var out []string
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			out = append(out, vs...)
		}
	}
	return out
}

// decodedHeader applies the =?base64?…?= form with a strict decoder.
func decodedHeader(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if len(v) >= len("=?base64??=") && strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len("=?base64?") : len(v)-2])
		return string(b), err == nil
	}
	return v, true
}

var jsonErrorCodes = map[int][]int64{
	// An initialize-era request for a method the server does not have
	// is answered as any JSON-RPC response is in that era: 200 with the
	// error (refusalStatus); a request with no _meta revision is judged
	// initialize-era.
	http.StatusOK:                    {-32601},
	http.StatusBadRequest:            {-32700, -32600, -32602, -32020, -32021, -32022},
	http.StatusForbidden:             {-32600},
	http.StatusNotFound:              {-32601},
	http.StatusMethodNotAllowed:      {-32600},
	http.StatusNotAcceptable:         {-32600},
	http.StatusLengthRequired:        {-32600},
	http.StatusRequestEntityTooLarge: {-32600},
	http.StatusUnsupportedMediaType:  {-32600},
	http.StatusServiceUnavailable:    {-32603, -32600},
}

// FuzzAdmission feeds Handler.Prepare requests with fuzzed method, path,
// Host, Origin, headers (Mcp-Method, Mcp-Name, Mcp-Param-*, their base64
// forms, media types) and bodies. Prepare must never panic; a refusal
// must be a status the transport defines with a schema-valid, ASCII,
// id-consistent JSON-RPC error; and anything admitted must satisfy the
// rules as the hand-written oracles read them: loopback Host (the handler
// pins it) and Origin, no userinfo, matching mirrored headers, the
// declared length.
func FuzzAdmission(f *testing.F) {
	rt := testRuntime(f, nil)
	h, err := streamablehttp.NewHandler(rt, streamablehttp.WithPath("/mcp"), streamablehttp.WithAllowedHosts("localhost", "127.0.0.1", "::1"), streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: 4096}))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		if err := h.Close(); err != nil {
			f.Errorf("closing handler: %v", err)
		}
	})

	seed := func(method, path, host string, frame []byte, edit func(http.Header), delta int8) {
		hd := testfixture.HTTPHeaders(frame)
		if edit != nil {
			edit(hd)
		}
		f.Add(method, path, host, headerBlock(hd), frame, delta)
	}
	set := func(k, v string) func(http.Header) { return func(h http.Header) { h.Set(k, v) } }
	seed("POST", "/mcp", "127.0.0.1:8080", discover(1), nil, 0)
	seed("POST", "/mcp", "localhost", call("a", "echo", map[string]any{"text": "hi"}), nil, 0)
	seed("POST", "/mcp", "[::1]:3000", call(2, "echo", nil), set("Mcp-Name", "=?base64?ZWNobw==?="), 0)
	seed("POST", "/mcp", "localhost", call(2, "echo", nil), set("Mcp-Name", "=?base64?ZWNobw?="), 0)
	seed("POST", "/mcp", "localhost", call(3, "regional", map[string]any{"region": "zürich", "shard": 7}), func(h http.Header) {
		h.Set("Mcp-Param-Region", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("zürich"))+"?=")
		h.Set("Mcp-Param-Shard", "7.0")
	}, 0)
	seed("POST", "/mcp", "localhost", call(3, "regional", map[string]any{"region": " x "}), set("Mcp-Param-Region", " x "), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "http://localhost:5173"), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "http://user:pw@localhost"), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "http://localhost@evil.example"), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "http://evil.example#@localhost"), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "http://[::1]:80"), 0)
	seed("POST", "/mcp", "localhost", discover(4), set("Origin", "null"), 0)
	seed("POST", "/mcp", "evil.example", discover(5), nil, 0)
	seed("POST", "/mcp", "localhost.evil.example", discover(5), nil, 0)
	seed("POST", "/mcp", "127.0.0.1.nip.io:80", discover(5), nil, 0)
	seed("POST", "/mcp", "localhost.", discover(5), nil, 0)
	seed("POST", "/mcp", "localhost", discover(6), set("Content-Type", "application/json; charset=UTF-8"), 0)
	seed("POST", "/mcp", "localhost", discover(6), set("Accept", "*/*;q=0"), 0)
	seed("POST", "/mcp", "localhost", discover(6), func(h http.Header) { h["Mcp-Method"] = []string{"server/discover", "tools/list"} }, 0)
	seed("POST", "/mcp", "localhost", discover(6), func(h http.Header) { h["mcp-method"] = h["Mcp-Method"]; delete(h, "Mcp-Method") }, 0)
	seed("POST", "/mcp", "localhost", discover(7), nil, 5)
	seed("POST", "/mcp", "localhost", discover(7), nil, -3)
	seed("POST", "/mcp", "localhost", discover(7), nil, -128)
	seed("POST", "/mcp", "localhost", discover(7), set("Transfer-Encoding", "chunked"), 0)
	seed("GET", "/mcp", "localhost", nil, nil, 0)
	seed("POST", "/other", "localhost", discover(8), nil, 0)
	seed("POST", "/mcp", "localhost", []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"a":"\xff"}}`), nil, 0)
	seed("POST", "/mcp", "localhost", testkit.Notification("notifications/cancelled", map[string]any{"requestId": 1}), nil, 0)
	seed("POST", "/mcp", "localhost", listenFrame(9), nil, 0)
	// A method no revision has: 404 in 2026-07-28, named by _meta or by
	// the header alone; 200 with the error for an initialize-era request.
	seed("POST", "/mcp", "localhost", testkit.Request(10, "no/such", nil), nil, 0)
	seed("POST", "/mcp", "localhost", []byte(`{"jsonrpc":"2.0","id":11,"method":"no/such"}`), set("Mcp-Protocol-Version", "2026-07-28"), 0)
	seed("POST", "/mcp", "localhost", []byte(`{"jsonrpc":"2.0","id":12,"method":"no/such"}`), set("Mcp-Protocol-Version", "2025-11-25"), 0)

	f.Fuzz(func(t *testing.T, method, path, host, headers string, body []byte, delta int8) {
		if len(body) > 8192 || len(headers) > 8192 {
			return
		}
		req := &streamablehttp.Request{
			Method:        method,
			Path:          path,
			Host:          host,
			Header:        parseHeaderBlock(headers),
			ContentLength: int64(len(body)) + int64(delta),
			Body:          bytes.NewReader(body),
			Peer:          "fuzz",
		}
		if delta == -128 {
			req.ContentLength = -1
		}
		if te := req.Header["Transfer-Encoding"]; te != nil {
			req.TransferEncoding = te
		}
		p, resp := h.Prepare(req)
		if (p == nil) == (resp == nil) {
			t.Fatalf("Prepare returned prepared=%v response=%v", p != nil, resp != nil)
		}
		if resp != nil {
			checkRefusal(t, req, body, resp)
			return
		}
		defer p.Discard()
		checkAdmitted(t, req, body, p.Method())
	})
}

// checkRefusal checks a response Prepare gave instead of admitting.
func checkRefusal(t *testing.T, req *streamablehttp.Request, body []byte, resp *streamablehttp.Response) {
	t.Helper()
	if resp.Status == http.StatusAccepted {
		if len(resp.Body) != 0 {
			t.Fatalf("202 with a body %q", resp.Body)
		}
		return
	}
	codes, known := jsonErrorCodes[resp.Status]
	if !known {
		t.Fatalf("unexpected status %d", resp.Status)
	}
	if resp.Status == http.StatusNotFound && resp.ContentType != "application/json" {
		if req.Path == "/mcp" {
			t.Fatalf("404 page for the endpoint's own path")
		}
		return
	}
	frame := testfixture.CheckFrame(t, resp.Body, "")
	if frame.Error == nil {
		t.Fatalf("status %d without an error: %s", resp.Status, resp.Body)
	}
	found := false
	for _, c := range codes {
		found = found || frame.Error.Code == c
	}
	if !found {
		t.Fatalf("status %d with code %d: %s", resp.Status, frame.Error.Code, resp.Body)
	}
	if resp.Status == http.StatusOK && servedAs20260728(req, body) {
		// 2026-07-28 answers an unknown method with 404; only an
		// initialize-era request is answered 200 with the error.
		t.Fatalf("200 with %d for a request of the 2026-07-28 revision: %s", frame.Error.Code, resp.Body)
	}
	// Refusals that must happen whatever else is wrong with the request,
	// once the path and method are right.
	if req.Path != "/mcp" || req.Method != http.MethodPost {
		return
	}
	origins := req.Header["Origin"]
	badOrigin := len(origins) > 1 || len(origins) == 1 && !originIsLoopback(origins[0])
	if (badOrigin || !hostIsLoopback(req.Host)) && resp.Status != http.StatusForbidden {
		t.Fatalf("Origin %q / Host %q answered %d, want 403", origins, req.Host, resp.Status)
	}
}

// checkAdmitted checks a request Prepare admitted against the oracles.
func checkAdmitted(t *testing.T, req *streamablehttp.Request, body []byte, method string) {
	t.Helper()
	if req.Method != http.MethodPost || req.Path != "/mcp" {
		t.Fatalf("admitted %s %s", req.Method, req.Path)
	}
	if origins := req.Header["Origin"]; len(origins) > 1 || len(origins) == 1 && !originIsLoopback(origins[0]) {
		t.Fatalf("admitted Origin %q", origins)
	}
	if !hostIsLoopback(req.Host) {
		t.Fatalf("admitted Host %q", req.Host)
	}
	if req.ContentLength != int64(len(body)) || len(req.TransferEncoding) > 0 {
		t.Fatalf("admitted a declared length of %d for a %d-byte body (TE %q)", req.ContentLength, len(body), req.TransferEncoding)
	}
	if ct := req.Header["Content-Type"]; len(ct) != 1 || !strings.EqualFold(strings.TrimSpace(strings.Split(ct[0], ";")[0]), "application/json") {
		t.Fatalf("admitted Content-Type %q", ct)
	}
	msg, err := jsonrpc.Decode(body)
	if err != nil || msg.Kind != jsonrpc.KindRequest || msg.Method != method {
		t.Fatalf("admitted a body that is not a %s request: %v", method, err)
	}
	if !claims20260728(req, body) {
		// A request that claims no 2026-07-28 revision is served under
		// the initialize-era rules, where the 2026 headers mean nothing.
		return
	}
	if vs := valuesOf(req.Header, "Mcp-Method"); len(vs) != 1 || strings.TrimSpace(vs[0]) != method {
		t.Fatalf("admitted Mcp-Method %q for %s", vs, method)
	}
	if vs := valuesOf(req.Header, "Mcp-Protocol-Version"); len(vs) != 1 {
		t.Fatalf("admitted MCP-Protocol-Version %q", vs)
	}
	var params struct {
		Name      *string `json:"name"`
		URI       *string `json:"uri"`
		Arguments map[string]json.RawMessage
	}
	_ = json.Unmarshal(msg.Params, &params)
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		want := params.Name
		if method == "resources/read" {
			want = params.URI
		}
		vs := valuesOf(req.Header, "Mcp-Name")
		if len(vs) != 1 || want == nil {
			t.Fatalf("admitted %s with Mcp-Name %q", method, vs)
		}
		if got, ok := decodedHeader(vs[0]); !ok || got != *want {
			t.Fatalf("admitted Mcp-Name %q for name %q", vs[0], *want)
		}
	}
	if method == "tools/call" && params.Name != nil && *params.Name == "regional" {
		checkParamHeader(t, req.Header, "Mcp-Param-Region", params.Arguments["region"])
		checkParamHeader(t, req.Header, "Mcp-Param-Shard", params.Arguments["shard"])
	}
}

// checkParamHeader checks one admitted x-mcp-header argument: a non-null
// value needs exactly one header equal to it after base64 decoding; a
// null or absent one needs none.
func checkParamHeader(t *testing.T, h http.Header, name string, arg json.RawMessage) {
	t.Helper()
	vs := valuesOf(h, name)
	if arg == nil || string(arg) == "null" {
		if len(vs) != 0 {
			t.Fatalf("admitted %s %q for an absent argument", name, vs)
		}
		return
	}
	if len(vs) != 1 {
		t.Fatalf("admitted %s %q for argument %s", name, vs, arg)
	}
	got, ok := decodedHeader(vs[0])
	if !ok {
		t.Fatalf("admitted %s %q, which is not valid base64", name, vs[0])
	}
	var s string
	if json.Unmarshal(arg, &s) == nil {
		if got != s {
			t.Fatalf("admitted %s %q for argument %q", name, got, s)
		}
		return
	}
	a, errA := strconv.ParseFloat(got, 64)
	b, errB := strconv.ParseFloat(string(arg), 64)
	if errA != nil || errB != nil || a != b {
		t.Fatalf("admitted %s %q for argument %s", name, got, arg)
	}
}

// methods20260728 are the requests a client sends in the 2026-07-28
// revision (its schema's client requests).
var methods20260728 = map[string]bool{
	"completion/complete": true, "prompts/get": true, "prompts/list": true, "resources/list": true,
	"resources/read": true, "resources/templates/list": true, "server/discover": true,
	"subscriptions/listen": true, "tools/call": true, "tools/list": true,
}

// servedAs20260728 reports whether a request belongs to the 2026-07-28
// revision: its _meta names the revision, or its one MCP-Protocol-Version
// header does and the revision has its method (a header alone does not
// make a request of a method the revision removed, such as ping, one of
// it).
func servedAs20260728(req *streamablehttp.Request, body []byte) bool {
	// Keys are matched exactly, as the server reads them (encoding/json
	// would match "pArAms" to a params field).
	var msg, params, meta map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	var method, version string
	_ = json.Unmarshal(msg["method"], &method)
	if json.Unmarshal(msg["params"], &params) == nil && json.Unmarshal(params["_meta"], &meta) == nil {
		_ = json.Unmarshal(meta["io.modelcontextprotocol/protocolVersion"], &version)
	}
	if version == "2026-07-28" {
		return true
	}
	vs := valuesOf(req.Header, "Mcp-Protocol-Version")
	return len(vs) == 1 && strings.TrimSpace(vs[0]) == "2026-07-28" && methods20260728[method]
}

// claims20260728 reports whether a request names the 2026-07-28 revision
// in its _meta or its MCP-Protocol-Version header.
func claims20260728(req *streamablehttp.Request, body []byte) bool {
	for _, v := range valuesOf(req.Header, "Mcp-Protocol-Version") {
		if strings.Contains(v, "2026-07-28") {
			return true
		}
	}
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	v, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	return v == "2026-07-28"
}
