// JSON Schema handling for tools: compiling, inferring and validating.

package dispatch

import (
	"encoding/json"
	"fmt"

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
