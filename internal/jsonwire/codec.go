// This file is the json-iterator configuration and the Marshal and
// Unmarshal every package uses.

package jsonwire

import (
	"bytes"
	"encoding/json"

	jsoniter "github.com/json-iterator/go"
)

// API is the json-iterator configuration every snodo package uses:
// case-sensitive field names (a client cannot reach "Name" by sending
// "name" twice in different cases), numbers decoded into interface values
// as json.Number (no float64 rounding), sorted map keys (deterministic
// bytes) and no HTML escaping.
var API = jsoniter.Config{
	EscapeHTML:             false,
	SortMapKeys:            true,
	UseNumber:              true,
	CaseSensitive:          true,
	ValidateJsonRawMessage: true,
}.Froze()

// Marshal encodes v with [API] and escapes every non-ASCII character. The
// result never contains a raw line break, so it is always one stdio frame:
// raw JSON passed through unchanged (a json.RawMessage schema written with
// indentation, say) is compacted when it carries one.
func Marshal(v any) ([]byte, error) {
	b, err := API.Marshal(v)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		// Encoders escape line breaks inside strings, so these are
		// whitespace between tokens and compacting changes no value.
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return nil, err
		}
		b = c.Bytes()
	}
	return EscapeNonASCII(b), nil
}

// Unmarshal decodes data into v with [API]. It does not apply the shared
// bounds; messages reach handlers only after the decoder has checked them.
func Unmarshal(data []byte, v any) error {
	return API.Unmarshal(data, v)
}

// Unquote decodes a raw JSON string token, quotes included.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if err := API.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
