package jsonrpc

// Request IDs: integers or strings, compared and encoded as sent.

import (
	"strconv"
	"unicode/utf8"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// maxIDBytes is the longest string id (and progress token) accepted, in
// bytes of its decoded value.
const maxIDBytes = 256

type idKind uint8

const (
	idNone idKind = iota // absent: the message is a notification
	idNull               // unreadable: an error response carries no id
	idInt
	idString
)

// ID is a JSON-RPC request id: a bounded string or an int64. The zero ID is
// "absent"; [NullID] stands for an id that could not be read.
// Integer ids round-trip exactly: they are never converted to float64.
type ID struct {
	str  string
	num  int64
	kind idKind
}

// NullID is the id of an error response to a message whose id could not be
// read. JSON-RPC 2.0 writes such an id as null, but the MCP schemas
// (2025-11-25 and 2026-07-28) allow an error response to omit its id and
// forbid null, so the encoders leave the member out: a client validating
// against the schema accepts the error.
var NullID = ID{kind: idNull}

// IntID returns an integer id.
func IntID(n int64) ID { return ID{num: n, kind: idInt} }

// StringID returns a string id. It does not check the length bound; ids
// decoded by this package always satisfy it.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IsValid reports whether the id is a string or an integer.
func (id ID) IsValid() bool { return id.kind == idInt || id.kind == idString }

// isNull reports whether the id stands for one that could not be read.
func (id ID) isNull() bool { return id.kind == idNull }

// Int returns the integer value and true for an integer id.
func (id ID) Int() (int64, bool) { return id.num, id.kind == idInt }

// Str returns the string value and true for a string id.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// String returns a readable form: 7, "abc", null or "" when absent.
func (id ID) String() string {
	switch id.kind {
	case idInt:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	case idNull:
		return "null"
	}
	return ""
}

// AppendJSON appends the id as JSON (ASCII only). An absent id is written as
// null.
func (id ID) AppendJSON(b []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(b, id.num, 10)
	case idString:
		return jsonwire.AppendString(b, id.str)
	}
	return append(b, "null"...)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler with the bounds [Decode]
// applies to ids: a string of at most 256 bytes or an integer in the int64
// range; anything else is a -32600 *Error.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := parseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// parseID parses a raw JSON token as a request id under the shared bounds: a
// string of at most maxIDBytes bytes or an integer in the int64 range. Any
// other value (null, a fraction, an exponent, a bool, an object) is an
// error.
func parseID(raw []byte) (ID, error) {
	if len(raw) == 0 {
		return ID{}, errBadID
	}
	switch c := raw[0]; {
	case c == '"':
		s, ok := jsonwire.Unquote(raw)
		if !ok || len(s) > maxIDBytes || !utf8.ValidString(s) {
			return ID{}, errBadID
		}
		return StringID(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return ID{}, errBadID
		}
		return IntID(n), nil
	}
	return ID{}, errBadID
}

var errBadID = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string of at most 256 bytes or a 64-bit integer"}
