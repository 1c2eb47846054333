// notifications/cancelled: the request id a client's names, and the one
// a server sends to end a subscription.

package mcpwire

import (
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// CancelledRequestID returns the requestId of a notifications/cancelled
// params object when it is present and within the id bounds. A malformed
// cancellation is ignored, as notifications get no answer.
func CancelledRequestID(params []byte) (jsonrpc.ID, bool) {
	raw, ok := jsonwire.Member(params, "requestId")
	if !ok {
		return jsonrpc.ID{}, false
	}
	id, err := rpcwire.ParseID(raw)
	return id, err == nil
}

// EncodeListenCancelled encodes the notifications/cancelled a server
// sends on stdio when it tears down the subscription opened by the listen
// request id (the only use 2026-07-28 allows a server). reason may be
// empty.
func EncodeListenCancelled(id jsonrpc.ID, reason string) []byte {
	b := make([]byte, 0, 96+len(reason))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = id.AppendJSON(b)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = jsonwire.AppendString(b, reason)
	}
	return append(b, '}', '}')
}
