package testkit

import (
	"strings"
	"testing"
)

// TestFrameCheckerFindsBadFrames: a result that breaks the schema is
// reported against the revision of its request.
func TestFrameCheckerFindsBadFrames(t *testing.T) {
	fc := newFrameChecker()
	fc.trace(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	fc.trace(false, []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`))
	fc.trace(false, []byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"\u00e9\"}}"))
	fc.trace(true, []byte(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	fc.trace(false, []byte(`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`))
	p := fc.failures()
	if len(p) != 2 || !strings.Contains(p[0], "2026-07-28") || !strings.Contains(p[1], "non-ASCII") {
		t.Fatalf("problems %q", p)
	}
}
