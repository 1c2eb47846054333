package stdio_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

// hostileLines are messages that must each be answered with -32700 and no
// id: invalid UTF-8 in every place a request has text (a stray
// continuation byte, a truncated sequence, an overlong encoding, a
// surrogate, a code point past U+10FFFF), and nesting past the bound.
var hostileLines = []struct {
	name    string
	line    string
	message string
}{
	{"invalid UTF-8 in the method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/c\x80ll\",\"params\":{}}", "UTF-8"},
	{"invalid UTF-8 in a string id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xc3\",\"method\":\"tools/call\",\"params\":{}}", "UTF-8"},
	{"invalid UTF-8 in a key", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"n\xc0\xafme\":\"echo\"}}", "UTF-8"},
	{"a surrogate in a value", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"\xed\xa0\x80\"}}}", "UTF-8"},
	{"past U+10FFFF in _meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"k\":\"\xf4\x90\x80\x80\"}}}", "UTF-8"},
	{"invalid UTF-8 after the object", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}\xff", "Parse error"},
	{"invalid UTF-8 between members", "{\"jsonrpc\":\"2.0\",\xa0\"id\":1,\"method\":\"tools/call\"}", "Parse error"},
	{"a notification with invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"\xfe\"}}", "UTF-8"},
	{"a million arrays", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":` + strings.Repeat("[", 1_000_000), "nesting is too deep"},
	{"deep objects, closed", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + strings.Repeat(`{"a":`, 200_000) + "1" + strings.Repeat("}", 200_000) + "}", "nesting is too deep"},
}

// Over stdio, as over HTTP, invalid UTF-8 anywhere and nesting past the
// bound are parse errors: one -32700 response without an id per line (a
// parse error cannot know it was a notification), and the connection
// serves the next line normally.
func TestHostileLinesAreParseErrors(t *testing.T) {
	srv := testkit.StartStdio(t, testRuntime(t, newGate()))
	for i, tc := range hostileLines {
		srv.Send(t, []byte(tc.line))
		id := fmt.Sprintf(`"after-%d"`, i)
		srv.Send(t, testkit.Request(strings.Trim(id, `"`), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "fine"}}))
		if r := srv.Client.AwaitResponse(t, id); r.Error != nil || !strings.Contains(string(r.Result), "fine") {
			t.Fatalf("%s: the next request got %s", tc.name, r.Raw)
		}
	}
	srv.CloseInput()
	if err := srv.Wait(t); err != nil {
		t.Fatal(err)
	}
	var parseErrors []*testkit.Frame
	for _, f := range srv.Client.WaitClosed(t) {
		if f.Error != nil {
			parseErrors = append(parseErrors, f)
		}
	}
	if len(parseErrors) != len(hostileLines) {
		t.Fatalf("%d error responses for %d hostile lines", len(parseErrors), len(hostileLines))
	}
	for i, f := range parseErrors {
		tc := hostileLines[i]
		if f.Error.Code != -32700 || f.ID != nil || !strings.Contains(f.Error.Message, tc.message) {
			t.Errorf("%s: %s, want -32700 mentioning %q with no id", tc.name, f.Raw, tc.message)
		}
	}
}
