package rpcwire

import (
	"testing"

	"github.com/snodo-go/snodo/jsonrpc"
)

func TestEncoders(t *testing.T) {
	f, err := EncodeResult(jsonrpc.IntID(9223372036854775807), map[string]any{"text": "é"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(f), `{"jsonrpc":"2.0","id":9223372036854775807,"result":{"text":"\u00e9"}}`; got != want {
		t.Fatalf("EncodeResult = %s, want %s", got, want)
	}
	e := EncodeError(jsonrpc.NullID, (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad x"}).WithData(map[string]any{"k": 1}))
	if got, want := string(e), `{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad x","data":{"k":1}}}`; got != want {
		t.Fatalf("EncodeError = %s, want %s", got, want)
	}
	// Unencodable data is dropped, never the error itself.
	e = EncodeError(jsonrpc.StringID("s"), (&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "x"}).WithData(make(chan int)))
	if got, want := string(e), `{"jsonrpc":"2.0","id":"s","error":{"code":-32603,"message":"x"}}`; got != want {
		t.Fatalf("EncodeError with bad data = %s", got)
	}
	n, err := EncodeNotification("notifications/progress", map[string]any{"progress": 1})
	if err != nil || string(n) != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` {
		t.Fatalf("EncodeNotification = %s, %v", n, err)
	}
}
