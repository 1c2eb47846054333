// Package rpcwire encodes JSON-RPC 2.0 frames (responses, errors,
// notifications, requests) with every non-ASCII character escaped, and
// parses request ids under the shared bounds. The transports, the dispatch
// core and the client use it; applications see only package jsonrpc.
package rpcwire

import (
	"strconv"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// AppendResult appends a complete response frame for id carrying an
// already-encoded (ASCII) result value.
func AppendResult(b []byte, id jsonrpc.ID, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// EncodeResult encodes a response frame carrying result.
func EncodeResult(id jsonrpc.ID, result any) ([]byte, error) {
	r, err := jsonwire.Marshal(result)
	if err != nil {
		return nil, err
	}
	return AppendResult(make([]byte, 0, len(r)+48), id, r), nil
}

// EncodeError encodes an error response frame. An unreadable id ([jsonrpc.NullID])
// leaves the id member out, as the MCP schema requires. If e.Data cannot be
// encoded the frame is sent without it, so an error always reaches the
// client.
func EncodeError(id jsonrpc.ID, e *jsonrpc.Error) []byte {
	b := make([]byte, 0, 96+len(e.Message))
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id.IsValid() {
		b = append(b, `"id":`...)
		b = id.AppendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"error":{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = jsonwire.AppendString(b, e.Message)
	if e.Data != nil {
		if d, err := jsonwire.Marshal(e.Data); err == nil {
			b = append(b, `,"data":`...)
			b = append(b, d...)
		}
	}
	return append(b, '}', '}')
}

// EncodeNotification encodes {"jsonrpc","method","params"} with no id.
// A nil params is left out.
func EncodeNotification(method string, params any) ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = jsonwire.AppendString(b, method)
	if params != nil {
		p, err := jsonwire.Marshal(params)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	return append(b, '}'), nil
}

// EncodeRequest encodes a request frame (used by initialize-era
// server-to-client requests and by clients).
func EncodeRequest(id jsonrpc.ID, method string, params any) ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"method":`...)
	b = jsonwire.AppendString(b, method)
	if params != nil {
		p, err := jsonwire.Marshal(params)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	return append(b, '}'), nil
}

// ParseID parses a raw JSON token as a request id under the shared bounds:
// a string of at most 256 bytes or an integer in the int64 range. Any
// other value (null, a fraction, an exponent, a bool, an object) is an
// error, the -32600 *jsonrpc.Error the decoder answers with.
func ParseID(raw []byte) (jsonrpc.ID, error) {
	var id jsonrpc.ID
	if err := id.UnmarshalJSON(raw); err != nil {
		return jsonrpc.ID{}, err
	}
	return id, nil
}
