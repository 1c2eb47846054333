package floor

import (
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func decode(t *testing.T, line string) *Request {
	t.Helper()
	var req Request
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

// An echo call is answered with its own id and text; anything else with
// an id gets MethodNotFound; a notification gets nothing.
func TestAnswer(t *testing.T) {
	resp, ok := Answer(decode(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{}}}`))
	b, _ := json.Marshal(resp)
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`; !ok || string(b) != want {
		t.Fatalf("echo: %s (ok %t), want %s", b, ok, want)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"sleep","arguments":{"ms":1}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{}}`,
	} {
		resp, ok := Answer(decode(t, line))
		if !ok || resp.Error == nil || resp.Error.Code != MethodNotFound || resp.Result != nil || len(resp.ID) == 0 {
			t.Fatalf("%s: %+v (ok %t), want MethodNotFound", line, resp, ok)
		}
	}
	if _, ok := Answer(decode(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)); ok {
		t.Fatal("a notification was answered")
	}
}
