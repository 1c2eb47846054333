package streamablehttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// bystander is a well-behaved client that keeps calling the server while
// a test attacks it: the server must go on serving it throughout.
type bystander struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	served int
	failed []string
}

// startBystander starts calling url over one connection of its own. Call
// check before the test ends.
func startBystander(t *testing.T, url string) *bystander {
	t.Helper()
	b := &bystander{stop: make(chan struct{})}
	// One connection at most: without the bound, a request made while the
	// previous response's connection is still on its way back to the idle
	// pool dials a new one, which a full listener rightly refuses.
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: testkit.DefaultTimeout}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer client.CloseIdleConnections()
		for i := 0; ; i++ {
			select {
			case <-b.stop:
				return
			default:
			}
			frame := call(fmt.Sprintf("bystander-%d", i), "echo", map[string]any{"text": "still here"})
			req, err := testfixture.NewMCPRequest(context.Background(), url, frame)
			if err != nil {
				b.fail(err.Error())
				return
			}
			resp, err := client.Do(req)
			if err != nil {
				b.fail(err.Error())
				continue
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !bytes.Contains(body, []byte("still here")) {
				b.fail(fmt.Sprintf("%d %s %v", resp.StatusCode, body, err))
				continue
			}
			b.mu.Lock()
			b.served++
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() { b.halt() })
	return b
}

func (b *bystander) fail(msg string) {
	b.mu.Lock()
	b.failed = append(b.failed, msg)
	b.mu.Unlock()
}

func (b *bystander) halt() {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	b.wg.Wait()
}

// check stops the bystander and fails t unless every one of its calls
// was served, and at least one was.
func (b *bystander) check(t *testing.T) {
	t.Helper()
	b.halt()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.failed) > 0 {
		t.Errorf("the server stopped serving a well-behaved client: %d failures, first %s", len(b.failed), b.failed[0])
	}
	if b.served == 0 {
		t.Error("the well-behaved client was never served")
	}
}

// statusOf sends raw on a new connection and returns the status of the
// answer and whether the server then closed the connection.
func statusOf(t *testing.T, addr, raw string) (int, string) {
	t.Helper()
	c := dial(t, addr)
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	resp := c.readHead(t)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.waitClosed(t)
	return resp.StatusCode, string(body)
}

// Malformed heads, conflicting lengths and transfer codings are refused
// by net/http or by the transport, without reading a body, and the
// connection is closed; a well-behaved client is served all along.
func TestHostileHeads(t *testing.T) {
	frame := discover(1)
	n := itoa(len(frame))
	head := func(extra ...string) string { return rawRequest("/mcp", frame, extra...) + "\r\n" }
	cases := []struct {
		name   string
		raw    string
		status int
	}{
		{"two different Content-Lengths", head("Content-Length: "+n, "Content-Length: 5") + string(frame), 400},
		{"a Content-Length list", head("Content-Length: "+n+", "+n) + string(frame), 400},
		{"a signed Content-Length", head("Content-Length: +"+n) + string(frame), 400},
		{"a negative Content-Length", head("Content-Length: -1"), 400},
		{"a Content-Length past int64", head("Content-Length: 99999999999999999999999"), 400},
		// The body is never sent: the answer cannot wait for it.
		{"chunked without Content-Length", head("Transfer-Encoding: chunked"), 411},
		{"chunked with Content-Length", head("Transfer-Encoding: chunked", "Content-Length: "+n), 411},
		{"chunked, body started", head("Transfer-Encoding: chunked") + "10\r\n{\"jsonrpc\":\"2.0\"", 411},
		{"an unknown coding", head("Transfer-Encoding: gzip, chunked"), 501},
		{"a header without a colon", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n", 400},
		{"a space in a header name", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Name: v\r\n\r\n", 400},
		{"a NUL in a header value", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x00b\r\n\r\n", 400},
		{"a bare CR", "POST /mcp HTTP/1.1\rHost: 127.0.0.1\r\n\r\n", 400},
		{"no protocol in the request line", "POST /mcp\r\n\r\n", 400},
		{"two Hosts", "POST /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 0\r\n\r\n", 400},
		{"no Host", "POST /mcp HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400},
	}
	forEachTarget(t, func(t *testing.T, tg target) {
		// A short body timeout bounds how long a refused head's unsent
		// body is waited for; statusOf checks the connection closes.
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: 300 * time.Millisecond}))
		others := startBystander(t, ep.url)
		for _, tc := range cases {
			status, body := statusOf(t, ep.addr, tc.raw)
			if status != tc.status {
				t.Errorf("%s: status %d (%q), want %d", tc.name, status, body, tc.status)
			}
		}
		others.check(t)
	})
}

// Two Content-Length headers that agree are merged into one by net/http
// before any handler sees the request, as RFC 9110 section 8.6 allows:
// with no disagreement there is nothing to smuggle. The request is served.
func TestAgreeingContentLengthsAreMerged(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		frame := discover(1)
		n := itoa(len(frame))
		c := dial(t, ep.addr)
		if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+n, "Content-Length: "+n) + "\r\n" + string(frame))); err != nil {
			t.Fatal(err)
		}
		if reply := testfixture.ReadHTTPReply(t, c.readResponse(t), "server/discover"); reply.Status != 200 {
			t.Fatalf("status %d %s", reply.Status, reply.Body)
		}
	})
}

// A request refused from its head alone is answered without reading its
// body, and the connection is closed within the body timeout: net/http
// would otherwise wait, with no deadline, for up to 256 KiB of a body
// that never comes, so a client could hold connections (and the
// listener's slots) with heads alone.
func TestRefusedHeadDoesNotWaitForItsBody(t *testing.T) {
	frame := discover(1)
	cases := []struct {
		name   string
		extra  []string
		status int
	}{
		{"foreign Origin", []string{"Origin: http://evil.example", "Content-Length: 1000"}, 403},
		{"chunked", []string{"Transfer-Encoding: chunked"}, 411},
		{"chunked with a length", []string{"Transfer-Encoding: chunked", "Content-Length: 1000"}, 411},
		{"wrong media type", []string{"Content-Type: text/plain", "Content-Length: 1000"}, 415},
		{"over the body limit", []string{"Content-Length: 200000"}, 413},
	}
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: 100_000}), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: 200 * time.Millisecond}))
		for _, tc := range cases {
			raw := rawRequest("/mcp", frame, tc.extra...) + "\r\n"
			if tc.name == "wrong media type" {
				raw = strings.Replace(raw, "Content-Type: application/json\r\n", "", 1)
			}
			status, _ := statusOf(t, ep.addr, raw) // fails unless the server closes within 10 s
			if status != tc.status {
				t.Errorf("%s: status %d, want %d", tc.name, status, tc.status)
			}
		}
		if tg.name == "listener" {
			testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "0" })
		}
	})
}

// postBody posts body with the MCP headers of frame (a well-formed
// version of the request, so that only the body is hostile).
func postBody(t *testing.T, url string, frame, body []byte) *testfixture.HTTPReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = testfixture.HTTPHeaders(frame)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return testfixture.ReadHTTPReply(t, resp, "tools/call")
}

// expectParseError checks a 400 whose frame is -32700 with no id.
func expectParseError(t *testing.T, name string, r *testfixture.HTTPReply, wantMessage string) {
	t.Helper()
	f := r.Last()
	switch {
	case r.Status != http.StatusBadRequest:
		t.Errorf("%s: status %d %s, want 400", name, r.Status, r.Body)
	case f == nil || f.Error == nil || f.Error.Code != -32700:
		t.Errorf("%s: %s, want -32700", name, r.Body)
	case f.ID != nil:
		t.Errorf("%s: a parse error carries id %s", name, f.ID)
	case !strings.Contains(f.Error.Message, wantMessage):
		t.Errorf("%s: message %q, want it to mention %q", name, f.Error.Message, wantMessage)
	}
}

// invalidUTF8Bodies puts invalid UTF-8 in every place a JSON-RPC request
// has text: the method, an id, a key, a value, _meta, and outside any
// string. Each kind of invalid sequence appears: a stray continuation
// byte, a truncated sequence, an overlong encoding, a surrogate, a code
// point past U+10FFFF.
var invalidUTF8Bodies = map[string]string{
	"method":                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/c\x80ll\",\"params\":{}}",
	"string id":               "{\"jsonrpc\":\"2.0\",\"id\":\"a\xc3\",\"method\":\"tools/call\",\"params\":{}}",
	"key":                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"n\xc0\xafme\":\"echo\"}}",
	"argument value":          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"\xed\xa0\x80\"}}}",
	"_meta":                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"k\":\"\xf4\x90\x80\x80\"}}}",
	"after the object":        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}\xff",
	"between members":         "{\"jsonrpc\":\"2.0\",\xa0\"id\":1,\"method\":\"tools/call\"}",
	"truncated at the end":    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xe2\x82",
	"deep in nested argument": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":[[{\"b\":[\"ok\",\"\xfe\"]}]]}}}",
}

// Invalid UTF-8 anywhere in the JSON is a parse error: 400 with -32700
// and no id, whatever else the message says.
func TestInvalidUTF8IsAParseError(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		others := startBystander(t, ep.url)
		frame := call(1, "echo", map[string]any{"text": "x"})
		for name, body := range invalidUTF8Bodies {
			r := postBody(t, ep.url, frame, []byte(body))
			if name == "truncated at the end" {
				expectParseError(t, name, r, "Parse error")
				continue
			}
			expectParseError(t, name, r, "")
		}
		others.check(t)
	})
}

// Nesting past the depth bound is a parse error found at the bound: a
// body of a million '[' within the body limit costs the bytes already
// read and a scan of 129 of them.
func TestDeepNestingIsAParseError(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil))
		others := startBystander(t, ep.url)
		frame := call(1, "echo", map[string]any{"text": "x"})
		prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","deep":`
		for _, tc := range []struct {
			name  string
			inner string
		}{
			{"a million arrays", strings.Repeat("[", 1_000_000)},
			{"a million arrays, closed", strings.Repeat("[", 600_000) + strings.Repeat("]", 600_000)},
			{"objects", strings.Repeat(`{"a":`, 200_000) + "1" + strings.Repeat("}", 200_000)},
			{"one past the bound", strings.Repeat("[", 126) + strings.Repeat("]", 126)},
		} {
			r := postBody(t, ep.url, frame, []byte(prefix+tc.inner+"}}}"))
			expectParseError(t, tc.name, r, "nesting is too deep")
		}
		// At the bound (128 levels counting the envelope) it is served.
		meta := `},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		r := postBody(t, ep.url, frame, []byte(prefix+strings.Repeat("[", 125)+strings.Repeat("]", 125)+meta))
		if r.Status != 200 || r.Last() == nil || r.Last().Error != nil {
			t.Errorf("nesting at the bound: %d %.200s", r.Status, r.Body)
		}
		others.check(t)
	})
}

// Huge strings, arrays and objects inside the body limit are served (the
// bounds are on bytes, depth and digits, not on counts), and the server
// serves others meanwhile; one byte over the limit is 413.
func TestHugeValuesInsideTheBodyLimit(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		// An eighth of the default limit keeps the test quick under the
		// race detector; the bounds do not depend on the limit's size.
		const limit = streamablehttp.DefaultMaxBodyBytes / 8
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: limit}))
		others := startBystander(t, ep.url)
		frame := call(1, "echo", map[string]any{"text": "x"})
		envelope := func(args string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args +
				`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		}
		text := strings.Repeat("y", limit-400)
		escaped := strings.Repeat(`\u00e9`, (limit-400)/6)
		manyKeys := make([]string, 0, 15_000)
		for i := range 15_000 {
			manyKeys = append(manyKeys, fmt.Sprintf(`"k%d":%d`, i, i))
		}
		for _, tc := range []struct {
			name string
			body []byte
			want string // the echoed text
		}{
			{"a string near the limit", envelope(`{"text":"` + text + `"}`), text},
			{"a string of escapes", envelope(`{"text":"` + escaped + `"}`), strings.Repeat("é", (limit-400)/6)},
			{"an array of 100,000 numbers", envelope(`{"text":"ok","n":[` + strings.TrimSuffix(strings.Repeat("1,", 100_000), ",") + `]}`), "ok"},
			{"an object of 15,000 members", envelope(`{"text":"ok",` + strings.Join(manyKeys, ",") + `}`), "ok"},
		} {
			if len(tc.body) > limit {
				t.Fatalf("%s: the body is %d bytes, over the limit", tc.name, len(tc.body))
			}
			r := postBody(t, ep.url, frame, tc.body)
			f := r.Last()
			if r.Status != 200 || f == nil || f.Error != nil {
				t.Errorf("%s: %d %.200s", tc.name, r.Status, r.Body)
				continue
			}
			var res struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if err := json.Unmarshal(f.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != tc.want {
				t.Errorf("%s: the echo does not match (%v)", tc.name, err)
			}
		}
		// One byte over: refused from the declared length, and drained
		// (it is under 256 KiB) so the client reads the 413.
		over := envelope(`{"text":"` + strings.Repeat("z", limit) + `"}`)
		over = envelope(`{"text":"` + strings.Repeat("z", 2*limit+1-len(over)) + `"}`)
		if len(over) != limit+1 {
			t.Fatalf("the body over the limit is %d bytes", len(over))
		}
		if r := postBody(t, ep.url, frame, over); r.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("over the limit: %d", r.Status)
		}
		others.check(t)
	})
}

// DNS rebinding: a page on an attacker's name that resolves to loopback
// sends its own Host and Origin. With the Host rule on, names other than
// the allowed ones are refused; the Origin rule (on by default) refuses
// any Origin that is not a loopback name, one with userinfo, and names
// that merely start with a loopback name.
func TestRebindingHostsAndOriginsAre403(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithAllowedHosts("127.0.0.1", "localhost"))
		others := startBystander(t, ep.url)
		_, port, _ := strings.Cut(ep.addr, ":")
		hosts := []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example", "localhost.evil.example:" + port,
			"127.0.0.1.nip.io", "0x7f000001", "2130706433", "[::ffff:127.0.0.1]:" + port, "localhost:" + port + "@evil.example"}
		for _, host := range hosts {
			r := testfixture.PostMCP(t, nil, ep.url, discover(1), func(r *http.Request) { r.Host = host })
			if r.Status != http.StatusForbidden || r.Last() == nil || r.Last().Error == nil || r.Last().Error.Code != -32600 {
				t.Errorf("Host %q: %d %s", host, r.Status, r.Body)
			}
		}
		origins := []string{"http://evil.example:" + port, "https://evil.example", "http://127.0.0.1.evil.example",
			"http://localhost.evil.example:" + port, "http://localhost@evil.example", "http://user:pass@localhost:" + port,
			"http://localhost:" + port + "@evil.example", "http://[::ffff:127.0.0.1]", "null", "file://", "http://localhost:" + port + " http://evil.example"}
		for _, origin := range origins {
			r := testfixture.PostMCP(t, nil, ep.url, discover(1), func(r *http.Request) { r.Header.Set("Origin", origin) })
			if r.Status != http.StatusForbidden || r.Last() == nil || r.Last().Error == nil || r.Last().Error.Code != -32600 {
				t.Errorf("Origin %q: %d %s", origin, r.Status, r.Body)
			}
		}
		// The genuine names are served.
		for _, origin := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port} {
			r := testfixture.PostMCP(t, nil, ep.url, discover(1), func(r *http.Request) { r.Header.Set("Origin", origin) })
			if r.Status != 200 {
				t.Errorf("Origin %q: %d %s", origin, r.Status, r.Body)
			}
		}
		others.check(t)
	})
}
