package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// member locates the value of a top-level member of a JSON object: the
// byte offsets [start, end) of the value, and whether it was found. The
// bridge edits ids in place this way, so every other byte of a message
// reaches the other side exactly as it was sent.
func member(obj []byte, key string) (start, end int, found bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return 0, 0, false, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return 0, 0, false, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false, err
		}
		name, _ := tok.(string)
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false, err
		}
		if name != key || found {
			continue
		}
		end = int(dec.InputOffset())
		start = afterKey
		for start < end && (obj[start] == ':' || isSpace(obj[start])) {
			start++
		}
		found = true
	}
	if _, err := dec.Token(); err != nil {
		return 0, 0, false, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, 0, false, errors.New("trailing data after the JSON object")
	}
	return start, end, found, nil
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// replaceMember returns obj with the value of its top-level member key
// replaced by value; false when obj has no such member.
func replaceMember(obj []byte, key string, value []byte) ([]byte, bool) {
	start, end, found, err := member(obj, key)
	if err != nil || !found {
		return nil, false
	}
	out := make([]byte, 0, len(obj)-(end-start)+len(value))
	out = append(out, obj[:start]...)
	out = append(out, value...)
	return append(out, obj[end:]...), true
}

// memberValue returns the raw value of a top-level member, or nil.
func memberValue(obj []byte, key string) []byte {
	start, end, found, err := member(obj, key)
	if err != nil || !found {
		return nil
	}
	return obj[start:end]
}

// compactJSON returns raw without insignificant whitespace, so that two
// spellings of the same id or token compare equal.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// replacePath returns obj with the value at the path of nested object
// members replaced by value (params, _meta, progressToken, say); false
// when a member on the path is missing or not an object. Every other byte
// is kept.
func replacePath(obj []byte, value []byte, path ...string) ([]byte, bool) {
	if len(path) == 1 {
		return replaceMember(obj, path[0], value)
	}
	inner := memberValue(obj, path[0])
	if inner == nil {
		return nil, false
	}
	edited, ok := replacePath(inner, value, path[1:]...)
	if !ok {
		return nil, false
	}
	return replaceMember(obj, path[0], edited)
}

// pathValue returns the raw value at a path of nested object members, or
// nil.
func pathValue(obj []byte, path ...string) []byte {
	for _, key := range path {
		if obj = memberValue(obj, key); obj == nil {
			return nil
		}
	}
	return obj
}
