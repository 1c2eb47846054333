// This file runs one message through a Runtime with no transport and
// checks the response.

package testkit

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Dispatch runs one raw message through rt with no transport, validates
// the response frame against the official 2026-07-28 schema, and returns
// it decoded (nil when the protocol demands silence).
func Dispatch(t testing.TB, rt *dispatch.Runtime, raw []byte) *Frame {
	t.Helper()
	return DispatchRequest(t, rt, raw, func(*dispatch.Request) {})
}

// DispatchRequest is Dispatch with a hook to set transport fields (headers,
// principal, notifier) on the request before it runs.
func DispatchRequest(t testing.TB, rt *dispatch.Runtime, raw []byte, setup func(*dispatch.Request)) *Frame {
	t.Helper()
	return DispatchVersion(t, rt, defaultVersion, raw, setup)
}

// DispatchVersion is DispatchRequest for a client of another revision:
// the response is validated against the official schema of version (for
// instance "2025-06-18" after an initialize that negotiated it). setup may
// be nil.
func DispatchVersion(t testing.TB, rt *dispatch.Runtime, version string, raw []byte, setup func(*dispatch.Request)) *Frame {
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
			t.Fatalf("testkit: frame has non-ASCII bytes: %q", out)
		}
	}
	if err := ValidateFrame(version, out, method); err != nil {
		t.Fatalf("testkit: frame fails the %s schema: %v\n%s", version, err, out)
	}
	f, err := decodeFrame(out)
	if err != nil {
		t.Fatalf("testkit: response is not JSON: %v", err)
	}
	return f
}
