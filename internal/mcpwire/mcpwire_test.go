package mcpwire_test

import (
	"bytes"
	"testing"

	"github.com/snodo-go/snodo/internal/mcpwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestEncodeListenCancelled(t *testing.T) {
	b := mcpwire.EncodeListenCancelled(jsonrpc.StringID("L"), "server shutting down")
	if err := testkit.ValidateFrame(mcp.Version20260728, b, ""); err != nil || !bytes.Contains(b, []byte(`"requestId":"L"`)) || !bytes.Contains(b, []byte(`"reason":"server shutting down"`)) {
		t.Fatalf("%v: %s", err, b)
	}
	if b := mcpwire.EncodeListenCancelled(jsonrpc.IntID(7), ""); bytes.Contains(b, []byte("reason")) {
		t.Fatalf("empty reason sent: %s", b)
	}
}

func TestIsProtocolNotification(t *testing.T) {
	for method, want := range map[string]bool{
		"notifications/cancelled":          true,
		"notifications/tools/list_changed": true,
		"notifications/message":            true,
		"notifications/app/custom":         false,
		"tools/call":                       false,
	} {
		if got := mcpwire.IsProtocolNotification(method); got != want {
			t.Errorf("IsProtocolNotification(%q) = %v, want %v", method, got, want)
		}
	}
}

func TestCancelledRequestID(t *testing.T) {
	if id, ok := mcpwire.CancelledRequestID([]byte(`{"requestId":"a","reason":"x"}`)); !ok || id != jsonrpc.StringID("a") {
		t.Fatalf("string id: %v %v", id, ok)
	}
	if id, ok := mcpwire.CancelledRequestID([]byte(`{"requestId":7}`)); !ok || id != jsonrpc.IntID(7) {
		t.Fatalf("number id: %v %v", id, ok)
	}
	for _, params := range []string{`{}`, `{"requestId":null}`, `{"requestId":1.5}`, `{"requestId":{}}`} {
		if id, ok := mcpwire.CancelledRequestID([]byte(params)); ok {
			t.Errorf("%s gave %v", params, id)
		}
	}
}
