package testkit_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestValidateFrame(t *testing.T) {
	const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	for _, tc := range []struct {
		version, method, frame string
		ok                     bool
	}{
		{"2026-07-28", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private",` + serverInfo + `}}`, true},
		{"2026-07-28", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"private"}}`, false},                           // no resultType
		{"2026-07-28", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`, false},                                    // no cache hints
		{"2026-07-28", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{}],"ttlMs":0,"cacheScope":"private"}}`, false}, // tool without name
		{"2026-07-28", "tools/call", `{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete","content":[{"type":"text","text":"a"}]}}`, true},
		{"2026-07-28", "tools/call", `{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete","content":[{"type":"text"}]}}`, false},
		{"2026-07-28", "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, true},
		// The MCP schema forbids a null id: an unreadable id is left out.
		{"2026-07-28", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, false},
		{"2026-07-28", "", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, false},
		{"2026-07-28", "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`, true},
		{"2026-07-28", "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, false},
		{"2025-06-18", "ping", `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"2025-06-18", "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}`, true},
		{"2025-11-25", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, true},
		{"2025-11-25", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`, false},
	} {
		err := testkit.ValidateFrame(tc.version, []byte(tc.frame), tc.method)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s %s: err = %v, want ok=%t", tc.version, tc.method, tc.frame, err, tc.ok)
		}
	}
	if err := testkit.ValidateFrame("1999-01-01", []byte(`{}`), ""); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Fatalf("unknown version: %v", err)
	}
}
