// This file tests the one pass over params admission makes: the members
// found are those jsonwire.Member would find, and a Request whose message
// is replaced is read again.

package dispatch_test

import (
	"bytes"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
)

func TestAdmissionRereadsReplacedParams(t *testing.T) {
	rt := probeRuntime(t, func(*dispatch.RequestInfo) {})
	req := &dispatch.Request{Message: mustDecode(t, metaFrame(1, "tools/call", cachedMeta)), Transport: dispatch.TransportStdio}
	if call, out := rt.Admit(req); call == nil {
		t.Fatalf("first message not admitted: %s", out.Frame)
	}
	other := `{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`
	req.Message = mustDecode(t, metaFrame(2, "tools/call", other))
	call, out := rt.Admit(req)
	if call != nil || !bytes.Contains(out.Frame, []byte("2099-01-01")) {
		t.Errorf("a replaced message was admitted with the old one's _meta: call %v, %s", call != nil, out.Frame)
	}
}

func TestAdmissionReadsTheFirstMetaAndEscapedKeys(t *testing.T) {
	rt := probeRuntime(t, func(*dispatch.RequestInfo) {})
	for _, c := range []struct{ name, frame string }{
		{"repeated _meta, first valid", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","_meta":` + cachedMeta + `,"_meta":{}}}`},
		{"escaped _meta key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","\u005fmeta":` + cachedMeta + `}}`},
	} {
		out := dispatchRaw(t, rt, []byte(c.frame), nil)
		if !bytes.Contains(out, []byte(`"ok"`)) {
			t.Errorf("%s: %s", c.name, out)
		}
	}
	out := dispatchRaw(t, rt, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}},"_meta":`+cachedMeta+`}}`), nil)
	if !bytes.Contains(out, []byte("2099-01-01")) {
		t.Errorf("repeated _meta, the first naming an unknown version: want that version refused, got %s", out)
	}
}

func mustDecode(t *testing.T, raw []byte) *jsonrpc.Message {
	t.Helper()
	msg, err := jsonrpc.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return msg
}
