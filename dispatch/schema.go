package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	jsoniter "github.com/json-iterator/go"
)

// JSON Schema handling. Schemas are JSON Schema 2020-12 unless they name
// draft-07 in $schema; github.com/google/jsonschema-go resolves and
// validates them. Remote $refs are never fetched (no loader is given), as
// the 2026-07-28 revision asks; a schema that needs one fails New.

// compileSchema resolves a raw schema for validation.
func compileSchema(raw []byte) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	return s.Resolve(nil)
}

// valueAPI decodes into the plain values the validator understands: its
// type checks need float64 numbers, not json.Number. It is json-iterator,
// about twice as fast as encoding/json here, on the request path of every
// validated tool call.
var valueAPI = jsoniter.Config{CaseSensitive: true}.Froze()

// toJSONValue turns raw JSON into the plain Go values the validator
// understands (maps, slices, float64, string, bool, nil).
func toJSONValue(raw []byte) (any, error) {
	var v any
	if err := valueAPI.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// schemaFailure describes a validation failure by where it happened and
// which keyword failed, never by the offending value: values may be
// secrets, and echoing them back helps injection.
func schemaFailure(err error) string {
	var loc string
	leaf := err
	for e := err; e != nil; e = errors.Unwrap(e) {
		msg := e.Error()
		if rest, ok := strings.CutPrefix(msg, "validating "); ok {
			if i := strings.Index(rest, ": "); i >= 0 {
				loc = rest[:i]
			}
			continue
		}
		leaf = e
		break
	}
	msg := leaf.Error()
	keyword, detail, _ := strings.Cut(msg, ":")
	where := instancePath(loc)
	switch {
	case keyword == "required":
		// Names of missing properties come from the schema, not the value.
		return where + ": missing required properties " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(detail), "missing properties:"))
	case strings.HasPrefix(keyword, "dependentRequired"):
		return where + ": missing properties another one depends on"
	case strings.HasPrefix(msg, "unexpected additional properties"):
		return where + ": unexpected properties"
	}
	return fmt.Sprintf("%s: fails %q", where, keyword)
}

// instancePath turns a schema location such as
// /properties/user/properties/age into the argument path /user/age. A
// location reached through $defs or a $ref is shown as a schema location.
func instancePath(loc string) string {
	loc = strings.TrimPrefix(loc, "root")
	if loc == "" {
		return "arguments"
	}
	toks := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "properties":
			if i+1 < len(toks) {
				b.WriteString("/" + toks[i+1])
				i++
			}
		case "items", "additionalProperties":
			b.WriteString("/*")
		case "prefixItems":
			if i+1 < len(toks) {
				b.WriteString("/" + toks[i+1])
				i++
			}
		case "allOf", "anyOf", "oneOf":
			i++ // the branch index says nothing about the instance
		case "if", "then", "else", "not":
		default:
			return "schema location " + loc
		}
	}
	if b.Len() == 0 {
		return "arguments"
	}
	return "argument " + b.String()
}
