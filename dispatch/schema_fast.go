// The precompiled check for flat object input schemas, tried before
// jsonschema-go.

package dispatch

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	jsoniter "github.com/json-iterator/go"
)

// flatSchema is a precompiled check for the input schema most tools have:
// an object whose properties are each a plain scalar type, some of them
// required. It reads the arguments' bytes once, without building the
// map[string]any the general validator needs, and only ever answers
// "valid" or "not sure": anything it does not recognise as valid (a wrong
// type, a missing or unknown property, a duplicate key, a number it cannot
// be sure of) goes to the general validator, which then decides and names
// the failure. So accepting is the only thing it does, and it accepts only
// what the general validator accepts.
//
// Building the map and validating it were about a fifth of the server's
// CPU for a small tool call.
type flatSchema struct {
	props []flatProp
	// closed is additionalProperties:false: an unknown key is a failure
	// (left to the general validator to report).
	closed bool
	// required is a bit set over props; the schema qualifies only with at
	// most 64 properties.
	required uint64
}

type flatProp struct {
	name string
	kind flatKind
}

type flatKind uint8

const (
	flatString flatKind = iota + 1
	flatInteger
	flatNumber
	flatBoolean
	flatNull
)

var flatKinds = map[string]flatKind{
	`"string"`:  flatString,
	`"integer"`: flatInteger,
	`"number"`:  flatNumber,
	`"boolean"`: flatBoolean,
	`"null"`:    flatNull,
}

// annotation reports whether a schema keyword never affects validation
// (keywords of the "meta-data" vocabulary, $comment, and unknown x-
// extensions such as x-mcp-header, which the validator ignores).
func annotation(k string) bool {
	switch k {
	case "title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return strings.HasPrefix(k, "x-")
}

// compileFlat returns the fast check for schema, or nil when the schema
// has any keyword beyond type "object", properties of one scalar type
// each, required, a boolean additionalProperties, $schema at the root, and
// annotations. general is the same schema compiled for the general
// validator: the smallest instance the check would accept must pass it
// too (a $schema it cannot validate fails every instance there, so it gets
// no fast check either).
func compileFlat(schema []byte, general *jsonschema.Resolved) *flatSchema {
	var root map[string]json.RawMessage
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	f := &flatSchema{}
	var props map[string]json.RawMessage
	var required []string
	for k, v := range root {
		switch {
		case k == "type":
			if string(v) != `"object"` {
				return nil
			}
		case k == "properties":
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
		case k == "required":
			if json.Unmarshal(v, &required) != nil {
				return nil
			}
		case k == "$schema":
		case k == "additionalProperties":
			switch string(v) {
			case "false":
				f.closed = true
			case "true":
			default:
				return nil
			}
		case annotation(k):
		default:
			return nil
		}
	}
	if len(props) > 64 {
		return nil
	}
	for name, raw := range props {
		var ps map[string]json.RawMessage
		if json.Unmarshal(raw, &ps) != nil {
			return nil
		}
		var kind flatKind
		for k, v := range ps {
			switch {
			case k == "type":
				if kind = flatKinds[string(v)]; kind == 0 {
					return nil
				}
			case annotation(k):
			default:
				return nil
			}
		}
		if kind == 0 {
			return nil // no type: anything goes, which this check does not skip over
		}
		f.props = append(f.props, flatProp{name: name, kind: kind})
	}
	for _, r := range required {
		i := f.index(r)
		if i < 0 {
			return nil // a required property without a schema: left to the validator
		}
		f.required |= 1 << i
	}
	probe := make(map[string]any, len(required))
	for _, r := range required {
		probe[r] = f.props[f.index(r)].kind.sample()
	}
	if general.Validate(probe) != nil {
		return nil
	}
	return f
}

// sample is a value of kind k as the general path decodes it.
func (k flatKind) sample() any {
	switch k {
	case flatString:
		return ""
	case flatInteger, flatNumber:
		return float64(0)
	case flatBoolean:
		return false
	}
	return nil
}

func (f *flatSchema) index(name string) int {
	for i := range f.props {
		if f.props[i].name == name {
			return i
		}
	}
	return -1
}

// flatIterators decode with the same configuration as toJSONValue, so a
// value is read here exactly as the general path would read it.
var flatIterators = valueAPI

// valid reports whether args, an object's JSON, certainly satisfies f.
// false means "not sure", never "invalid".
func (f *flatSchema) valid(args []byte) bool {
	it := flatIterators.BorrowIterator(args)
	defer flatIterators.ReturnIterator(it)
	if it.WhatIsNext() != jsoniter.ObjectValue {
		return false
	}
	var seen uint64
	ok := it.ReadMapCB(func(it *jsoniter.Iterator, key string) bool {
		i := f.index(key)
		if i < 0 || seen&(1<<i) != 0 {
			// Unknown (its value would have to be skipped unchecked) or a
			// duplicate (the general path keeps the last one).
			return false
		}
		seen |= 1 << i
		return f.props[i].kind.read(it)
	})
	if !ok || it.Error != nil || seen&f.required != f.required {
		return false
	}
	// Nothing may follow the object.
	return it.WhatIsNext() == jsoniter.InvalidValue && it.Error == io.EOF
}

// read consumes one value and reports whether it is certainly of kind k
// (and would decode without error on the general path).
func (k flatKind) read(it *jsoniter.Iterator) bool {
	switch k {
	case flatString:
		if it.WhatIsNext() != jsoniter.StringValue {
			return false
		}
		it.ReadString() // decodes escapes as the general path does
	case flatBoolean:
		if it.WhatIsNext() != jsoniter.BoolValue {
			return false
		}
		it.ReadBool()
	case flatNull:
		if !it.ReadNil() {
			return false
		}
	case flatInteger, flatNumber:
		if it.WhatIsNext() != jsoniter.NumberValue {
			return false
		}
		n := it.ReadNumber()
		if !plainNumber(string(n), k == flatInteger) {
			return false
		}
	default:
		return false
	}
	return it.Error == nil
}

// plainNumber accepts only numbers whose value as a float64 is certain
// and which the general path decodes without error: an optional minus, at
// most 15 digits without a leading zero, and (unless integer) a fraction,
// no exponent. Anything else goes to the general validator.
func plainNumber(s string, integer bool) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 15 || (s[0] == '0' && len(s) > 1 && s[1] != '.') {
		return false
	}
	dot := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !integer && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return true
}
