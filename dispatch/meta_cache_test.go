// This file tests that remembering decoded _meta objects changes nothing a
// request sees: progress tokens, client info, header and method checks, and
// the cache's bound.

package dispatch_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// metaFrame is a tools/call of probe whose _meta is meta.
func metaFrame(id int, method, meta string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"name":"probe","arguments":{},"_meta":%s}}`, id, method, meta)
}

const cachedMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"roots":{}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"probe-client","version":"1"}}`

// probeRuntime serves a tool that hands each call's RequestInfo to seen and
// then changes the client info it was given.
func probeRuntime(t *testing.T, seen func(*dispatch.RequestInfo)) *dispatch.Runtime {
	t.Helper()
	return mustNew(t, dispatch.WithTool(mcp.Tool{Name: "probe"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		info := dispatch.RequestInfoFromContext(ctx)
		c := *info
		if info.ClientInfo != nil {
			ci := *info.ClientInfo
			c.ClientInfo = &ci
		}
		seen(&c)
		if info.ClientInfo != nil {
			info.ClientInfo.Name = "changed by a handler"
		}
		return mcp.TextResult("ok"), nil
	}))
}

func dispatchRaw(t *testing.T, rt *dispatch.Runtime, raw []byte, setup func(*dispatch.Request)) []byte {
	t.Helper()
	msg, err := jsonrpc.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	req := &dispatch.Request{Message: msg, Transport: dispatch.TransportStdio}
	if setup != nil {
		setup(req)
	}
	return rt.Dispatch(context.Background(), req).Frame
}

func TestMetaCacheRepeatsWhatADecodeGives(t *testing.T) {
	var infos []dispatch.RequestInfo
	rt := probeRuntime(t, func(i *dispatch.RequestInfo) { infos = append(infos, *i) })
	for id := 1; id <= 3; id++ {
		if out := dispatchRaw(t, rt, metaFrame(id, "tools/call", cachedMeta), nil); !bytes.Contains(out, []byte(`"ok"`)) {
			t.Fatalf("call %d: %s", id, out)
		}
	}
	if rt.MetaCacheLen() != 1 {
		t.Fatalf("cache holds %d entries after three identical _meta, want 1", rt.MetaCacheLen())
	}
	for i, info := range infos {
		if info.ClientInfo == nil || info.ClientInfo.Name != "probe-client" {
			t.Errorf("call %d: client info %+v, want the one sent (a handler's change must not reach other requests)", i+1, info.ClientInfo)
		}
		if info.ClientCapabilities.Roots == nil {
			t.Errorf("call %d: roots capability lost", i+1)
		}
		if info.ProtocolVersion != mcp.Version20260728 || string(info.Meta) != cachedMeta {
			t.Errorf("call %d: version %q, meta %s", i+1, info.ProtocolVersion, info.Meta)
		}
	}
}

func TestMetaCacheKeepsEachProgressToken(t *testing.T) {
	var tokens []jsonrpc.ID
	rt := probeRuntime(t, func(i *dispatch.RequestInfo) { tokens = append(tokens, i.ProgressToken) })
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p-1"}`
	for id := 1; id <= 2; id++ {
		dispatchRaw(t, rt, metaFrame(id, "tools/call", meta), nil)
	}
	if len(tokens) != 2 {
		t.Fatalf("%d calls ran, want 2", len(tokens))
	}
	for i, tok := range tokens {
		if tok.String() != `"p-1"` {
			t.Errorf("call %d: progress token %s, want \"p-1\"", i+1, tok.String())
		}
	}
	if rt.MetaCacheLen() != 0 {
		t.Errorf("a _meta with a progress token was remembered (%d entries)", rt.MetaCacheLen())
	}
}

func TestMetaCacheStillChecksTheRequest(t *testing.T) {
	rt := probeRuntime(t, func(*dispatch.RequestInfo) {})
	dispatchRaw(t, rt, metaFrame(1, "tools/call", cachedMeta), nil)
	if rt.MetaCacheLen() != 1 {
		t.Fatalf("cache holds %d entries, want 1", rt.MetaCacheLen())
	}
	out := dispatchRaw(t, rt, metaFrame(2, "tools/call", cachedMeta), func(r *dispatch.Request) {
		r.Transport = dispatch.TransportHTTP
		r.Header = http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"probe"}}
	})
	if !bytes.Contains(out, []byte("does not match _meta")) {
		t.Errorf("a mismatched header with a remembered _meta: %s", out)
	}
	out = dispatchRaw(t, rt, metaFrame(3, "no/such/method", cachedMeta), nil)
	if !bytes.Contains(out, []byte(`"code":-32601`)) {
		t.Errorf("an unknown method with a remembered _meta: %s", out)
	}
}

func TestMetaCacheIsBounded(t *testing.T) {
	rt := probeRuntime(t, func(*dispatch.RequestInfo) {})
	for i := range 3 * dispatch.MetaCacheEntries {
		meta := fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"vendor/n":%d}`, i)
		if out := dispatchRaw(t, rt, metaFrame(i, "tools/call", meta), nil); !bytes.Contains(out, []byte(`"ok"`)) {
			t.Fatalf("call %d: %s", i, out)
		}
		if n := rt.MetaCacheLen(); n > dispatch.MetaCacheEntries {
			t.Fatalf("after %d distinct _meta the cache holds %d, bound %d", i+1, n, dispatch.MetaCacheEntries)
		}
	}
	big := fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"vendor/pad":"%s"}`, bytes.Repeat([]byte("x"), 4096))
	before := rt.MetaCacheLen()
	dispatchRaw(t, rt, metaFrame(1, "tools/call", big), nil)
	if rt.MetaCacheLen() != before {
		t.Errorf("a 4 KiB _meta was remembered")
	}
}
