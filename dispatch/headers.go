package dispatch

import (
	"encoding/base64"
	"strings"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// HTTP header names mirrored from the body (2026-07-28), in canonical form.
const (
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

func headerMismatch(msg string, data any) *jsonrpc.Error {
	e := jsonrpc.NewError(jsonrpc.CodeHeaderMismatch, "Header mismatch: "+msg)
	if data != nil {
		e.Data = data
	}
	return e
}

// singleHeader returns the one value of a header, trimmed. present is false
// when it is absent; ok is false when it is repeated or has characters a
// header value may not carry.
func singleHeader(h map[string][]string, name string) (value string, present, ok bool) {
	vs := h[name]
	switch len(vs) {
	case 0:
		return "", false, true
	case 1:
	default:
		return "", true, false
	}
	v := strings.TrimSpace(vs[0])
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", true, false
		}
	}
	return v, true, true
}

// decodeHeaderValue applies the =?base64?...?= form.
func decodeHeaderValue(v string) (string, bool) {
	const pre, post = "=?base64?", "?="
	if !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) || len(v) < len(pre)+len(post) {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(pre) : len(v)-len(post)])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// checkMirroredHeaders checks Mcp-Method and Mcp-Name against the body.
// name is the body's params.name or params.uri for the methods that mirror
// one, "" otherwise.
func checkMirroredHeaders(h map[string][]string, method string, mirrorsName bool, name string) *jsonrpc.Error {
	m, present, ok := singleHeader(h, HeaderMethod)
	switch {
	case !present:
		return headerMismatch("Mcp-Method header is required", nil)
	case !ok:
		return headerMismatch("Mcp-Method header is malformed or repeated", nil)
	case m != method:
		return headerMismatch("Mcp-Method header does not match the body", map[string]any{"header": m, "body": method})
	}
	if !mirrorsName {
		return nil
	}
	n, present, ok := singleHeader(h, HeaderName)
	switch {
	case !present:
		return headerMismatch("Mcp-Name header is required", nil)
	case !ok:
		return headerMismatch("Mcp-Name header is malformed or repeated", nil)
	}
	decoded, ok := decodeHeaderValue(n)
	if !ok {
		return headerMismatch("Mcp-Name header has an invalid base64 value", nil)
	}
	if decoded != name {
		return headerMismatch("Mcp-Name header does not match the body", nil)
	}
	return nil
}
