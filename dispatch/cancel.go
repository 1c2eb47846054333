// Reading the request id a notifications/cancelled names.

package dispatch

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
