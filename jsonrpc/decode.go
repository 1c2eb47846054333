package jsonrpc

// Decoding one JSON-RPC 2.0 message, strictly, into a Message.

import (
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// Kind says what a decoded message is.
type Kind uint8

const (
	// KindRequest has a method and an id and expects a response.
	KindRequest Kind = iota + 1
	// KindNotification has a method and no id.
	KindNotification
	// KindResponse has a result or an error and no method. Servers never
	// answer it; initialize-era transports route it to a waiting
	// server-to-client request.
	KindResponse
)

// String names the kind: "request", "notification" or "response".
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC message. The raw spans (Params, Result,
// Error) alias the input buffer, which the caller must not reuse while the
// message is in use.
type Message struct {
	// Kind says whether the message is a request, a notification or a
	// response.
	Kind Kind
	// ID is the request's or response's id; the zero ID for a
	// notification.
	ID ID
	// Method is the method of a request or notification; empty for a
	// response.
	Method string
	// Params is the raw params object, or nil when absent or null.
	Params []byte
	// Result and Error are the raw members of a response.
	Result []byte
	// Error is the raw error member of an error response.
	Error []byte
}

// DecodeError reports a message that cannot be served. When Reply is false
// the protocol demands silence (a malformed notification); otherwise the
// sender gets Err as an error response carrying ID.
type DecodeError struct {
	// ID is the id to answer with; the zero ID when none could be read.
	ID ID
	// Err is the JSON-RPC error to send.
	Err *Error
	// Reply is false when the message must get no answer.
	Reply bool
}

// Error describes the message and why it cannot be served.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("undecodable message (reply=%t): %s", e.Reply, e.Err.Message)
}

// Unwrap returns the JSON-RPC error.
func (e *DecodeError) Unwrap() error { return e.Err }

var (
	errBatch        = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: batches are not supported"}
	errNotObject    = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: a message must be a JSON object"}
	errDuplicate    = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: duplicate member"}
	errVersion      = &Error{Code: CodeInvalidRequest, Message: `Invalid Request: jsonrpc must be "2.0"`}
	errMethod       = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: method must be a string"}
	errParamsObject = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: params must be an object"}
)

func reply(id ID, err *Error) *DecodeError  { return &DecodeError{ID: id, Err: err, Reply: true} }
func silent(id ID, err *Error) *DecodeError { return &DecodeError{ID: id, Err: err} }
func parseError(message string) *DecodeError {
	return reply(NullID, &Error{Code: CodeParseError, Message: message})
}
func memberIs(key []byte, name string) bool { return jsonwire.KeyEquals(key, name) }

// Decode checks one message against the shared bounds and the JSON-RPC 2.0
// envelope. It returns a *DecodeError when the message cannot be served.
func Decode(data []byte) (*Message, error) {
	var (
		version, id, method, params, result, errv []byte
		hasID, dup                                bool
	)
	first, problem := jsonwire.Scan(data, func(key, value []byte) bool {
		var slot *[]byte
		switch {
		case memberIs(key, "jsonrpc"):
			slot = &version
		case memberIs(key, "id"):
			slot = &id
			if hasID {
				dup = true
			}
			hasID = true
		case memberIs(key, "method"):
			slot = &method
		case memberIs(key, "params"):
			slot = &params
		case memberIs(key, "result"):
			slot = &result
		case memberIs(key, "error"):
			slot = &errv
		default:
			return true
		}
		if *slot != nil {
			dup = true
		}
		*slot = value
		return true
	})
	if problem != "" {
		return nil, parseError(problem)
	}
	switch first {
	case '{':
	case '[':
		return nil, reply(NullID, errBatch)
	default:
		return nil, reply(NullID, errNotObject)
	}

	if method == nil && (result != nil || errv != nil) {
		// A response: never answered. An unreadable id leaves it unroutable.
		m := &Message{Kind: KindResponse, Result: result, Error: errv}
		if rid, err := parseID(id); err == nil && !dup {
			m.ID = rid
		}
		return m, nil
	}

	if !hasID {
		// A notification: anything wrong means silence.
		m := &Message{Kind: KindNotification}
		if dup {
			return nil, silent(ID{}, errDuplicate)
		}
		if e := envelope(m, version, method, params); e != nil {
			return nil, silent(ID{}, e)
		}
		return m, nil
	}

	rid, err := parseID(id)
	if err != nil || dup {
		if dup {
			return nil, reply(NullID, errDuplicate)
		}
		return nil, reply(NullID, errBadID)
	}
	m := &Message{Kind: KindRequest, ID: rid}
	if e := envelope(m, version, method, params); e != nil {
		return nil, reply(rid, e)
	}
	return m, nil
}

// envelope fills Method and Params after checking jsonrpc, method and
// params.
func envelope(m *Message, version, method, params []byte) *Error {
	if string(version) != `"2.0"` {
		if v, ok := jsonwire.Unquote(version); !ok || v != "2.0" {
			return errVersion
		}
	}
	if len(method) == 0 || method[0] != '"' {
		return errMethod
	}
	name, ok := jsonwire.UnquoteInterned(method)
	if !ok {
		return errMethod
	}
	m.Method = name
	switch {
	case params == nil || string(params) == "null":
	case params[0] == '{':
		m.Params = params
	default:
		return errParamsObject
	}
	return nil
}
