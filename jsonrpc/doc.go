// Package jsonrpc is the wire layer shared by every snodo transport and by
// the dispatch core: bounded decoding of one JSON-RPC 2.0 message
// ([Decode]), request ids that round-trip exactly ([ID]), and JSON-RPC
// errors with the standard codes ([Error]). The frames the library writes
// escape every non-ASCII character.
//
// The bounds are the same on every transport:
//
//   - an integer literal of more than 64 digits (sign not
//     counted) is a parse error (-32700), detected without reading past the
//     65th digit;
//   - nesting deeper than 128 levels is a parse error;
//   - invalid UTF-8 and trailing data after the value are parse errors;
//   - a request id must be a string of at most 256 bytes or an
//     integer in the int64 range, else -32600 answered without an id (the
//     MCP schema forbids a null id; see [NullID]);
//   - a batch (a JSON array) is -32600;
//   - a JSON-RPC response object, and a malformed notification, get no answer.
//
// Syntax checking is a single allocation-free pass over the bytes;
// typed values are then decoded with json-iterator.
package jsonrpc
