// The 2026-07-28 HTTP header rules (Mcp-Method, Mcp-Name, Mcp-Param-*),
// checked at admission.

package dispatch

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

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
	m, present, ok := singleHeader(h, mcp.HeaderMethod)
	switch {
	case !present:
		return headerMismatchError("Mcp-Method header is required", nil)
	case !ok:
		return headerMismatchError("Mcp-Method header is malformed or repeated", nil)
	case m != method:
		return headerMismatchError("Mcp-Method header does not match the body", map[string]any{"header": m, "body": method})
	}
	if !mirrorsName {
		return nil
	}
	n, present, ok := singleHeader(h, mcp.HeaderName)
	switch {
	case !present:
		return headerMismatchError("Mcp-Name header is required", nil)
	case !ok:
		return headerMismatchError("Mcp-Name header is malformed or repeated", nil)
	}
	decoded, ok := decodeHeaderValue(n)
	if !ok {
		return headerMismatchError("Mcp-Name header has an invalid base64 value", nil)
	}
	if decoded != name {
		return headerMismatchError("Mcp-Name header does not match the body", nil)
	}
	return nil
}

// headerValues returns every value of the header called name, comparing
// names without regard to case (a transport may not have canonicalised
// them).
func headerValues(h map[string][]string, name string) []string {
	if vs, ok := h[name]; ok && len(h) < 2 {
		return vs
	}
	var out []string
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			out = append(out, vs...)
		}
	}
	return out
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call
// against the arguments (2026-07-28): when the body has a non-null value
// at an annotated property, the header must be present once and equal to
// it after base64 decoding (integers compare numerically, booleans as
// true/false); when the value is null or absent, the header must be
// absent too.
func checkParamHeaders(h map[string][]string, params []headerParam, arguments []byte) *jsonrpc.Error {
	for _, p := range params {
		body, hasBody := argumentAt(arguments, p.path)
		vs := headerValues(h, p.header)
		switch {
		case len(vs) > 1:
			return headerMismatchError(p.header+" header is repeated", nil)
		case !hasBody && len(vs) == 0:
			continue
		case !hasBody:
			return headerMismatchError(p.header+" header is present but the argument is null or absent", nil)
		case len(vs) == 0:
			return headerMismatchError(p.header+" header is required", nil)
		}
		raw := strings.TrimSpace(vs[0])
		for i := 0; i < len(raw); i++ {
			if c := raw[i]; c < 0x20 && c != '\t' || c >= 0x7f {
				return headerMismatchError(p.header+" header has invalid characters", nil)
			}
		}
		v, ok := decodeHeaderValue(raw)
		if !ok {
			return headerMismatchError(p.header+" header has an invalid base64 value", nil)
		}
		if !headerEqualsJSON(v, body) {
			return headerMismatchError(p.header+" header does not match the body", nil)
		}
	}
	return nil
}

// argumentAt follows a chain of property names into an arguments object.
// A null value counts as absent.
func argumentAt(args []byte, path []string) ([]byte, bool) {
	v := args
	for _, name := range path {
		next, ok := jsonwire.Member(v, name)
		if !ok {
			return nil, false
		}
		v = next
	}
	if len(v) == 0 || string(v) == "null" {
		return nil, false
	}
	return v, true
}

// headerEqualsJSON compares a decoded header value with a raw JSON value.
func headerEqualsJSON(h string, body []byte) bool {
	switch c := body[0]; {
	case c == '"':
		s, ok := jsonwire.Unquote(body)
		return ok && s == h
	case c == 't' || c == 'f':
		return h == string(body)
	case c == '-' || c >= '0' && c <= '9':
		// Integers are compared numerically ("42.0" equals 42); the
		// annotation is limited to the range float64 holds exactly.
		if h == "" || !(h[0] == '-' || h[0] >= '0' && h[0] <= '9') || !jsonwire.Valid([]byte(h)) {
			return false
		}
		a, errA := strconv.ParseFloat(h, 64)
		b, errB := strconv.ParseFloat(string(body), 64)
		return errA == nil && errB == nil && a == b
	}
	return false
}
