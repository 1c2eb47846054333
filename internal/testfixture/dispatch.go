// This file runs one message through a Runtime with no transport and
// checks the response.

package testfixture

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// Dispatch runs one raw message through rt with no transport, validates
// the response frame against the official 2026-07-28 schema, and returns
// it decoded (nil when the protocol demands silence).
func Dispatch(t testing.TB, rt *dispatch.Runtime, raw []byte) *testkit.Frame {
	t.Helper()
	return DispatchRequest(t, rt, raw, func(*dispatch.Request) {})
}

// DispatchRequest is Dispatch with a hook to set transport fields (headers,
// principal, notifier) on the request before it runs.
func DispatchRequest(t testing.TB, rt *dispatch.Runtime, raw []byte, setup func(*dispatch.Request)) *testkit.Frame {
	t.Helper()
	return DispatchVersion(t, rt, mcp.Version20260728, raw, setup)
}

// DispatchVersion is DispatchRequest for a client of another revision:
// the response is validated against the official schema of version (for
// instance "2025-06-18" after an initialize that negotiated it). setup may
// be nil.
func DispatchVersion(t testing.TB, rt *dispatch.Runtime, version string, raw []byte, setup func(*dispatch.Request)) *testkit.Frame {
	t.Helper()
	msg, err := jsonrpc.Decode(raw)
	var out []byte
	var method string
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		if !de.Reply {
			return nil
		}
		out = rpcwire.EncodeError(de.ID, de.Err)
	} else {
		method = msg.Method
		req := &dispatch.Request{Message: msg}
		if setup != nil {
			setup(req)
		}
		out = rt.Dispatch(context.Background(), req).Frame
	}
	if out == nil {
		return nil
	}
	for _, b := range out {
		if b >= 0x80 {
			t.Fatalf("testfixture: frame has non-ASCII bytes: %q", out)
		}
	}
	if err := testkit.ValidateFrame(version, out, method); err != nil {
		t.Fatalf("testfixture: frame fails the %s schema: %v\n%s", version, err, out)
	}
	f := &testkit.Frame{Raw: slices.Clone(out)}
	if err := json.Unmarshal(out, f); err != nil {
		t.Fatalf("testfixture: response is not JSON: %v", err)
	}
	return f
}
