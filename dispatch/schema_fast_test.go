package dispatch

import (
	"testing"
)

// flatSchemas are schemas the fast check takes, with the general
// validator they must agree with.
var flatSchemas = []string{
	`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
	`{"type":"object","properties":{"ms":{"type":"integer","description":"how long"}},"required":["ms"],"additionalProperties":false}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","properties":{"a":{"type":"number"},"b":{"type":"boolean"},"c":{"type":"null"},"d":{"type":"string","x-mcp-header":"D"}},"required":["a","b"]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":true}`,
}

// flatInstances cover what the check accepts and everything it must leave
// to the general validator.
var flatInstances = []string{
	`{}`, `{"text":"hi"}`, `{"text":"a\u00e9\n\"b"}`, `{"text":1}`, `{"text":null}`, `{"text":"x","extra":1}`,
	`{"text":"x","text":"y"}`, `{"text":"x","text":2}`, `{"text":"\x"}`, `{"text":"x"} `, `{"text":"x"}x`, ` {"text":"x"}`,
	`{"ms":5}`, `{"ms":-5}`, `{"ms":5.0}`, `{"ms":5.5}`, `{"ms":1e3}`, `{"ms":0}`, `{"ms":-0}`, `{"ms":007}`, `{"ms":12345678901234567890}`,
	`{"ms":"5"}`, `{"ms":true}`, `{"ms":5,"x":1}`,
	`{"a":1.5,"b":true}`, `{"a":-0.25,"b":false,"c":null,"d":"v"}`, `{"a":1,"b":true,"c":1}`, `{"a":1.,"b":true}`, `{"a":.5,"b":true}`,
	`{"a":1,"b":"true"}`, `{"b":true}`, `{"a":1e400,"b":true}`, `{"n":3}`, `{"n":3,"m":{"x":[1,2]}}`, `{"n":[]}`, `[]`, `"x"`, `{"n":3`,
}

func TestFlatSchemaAgreesWithTheValidator(t *testing.T) {
	accepted := 0
	for _, raw := range flatSchemas {
		general, err := compileSchema([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		f := compileFlat([]byte(raw), general)
		if f == nil {
			t.Fatalf("no fast check for %s", raw)
		}
		for _, in := range flatInstances {
			if !f.valid([]byte(in)) {
				continue
			}
			accepted++
			v, err := toJSONValue([]byte(in))
			if err != nil {
				t.Errorf("schema %s: fast check accepted %s, which does not decode: %v", raw, in, err)
				continue
			}
			if err := general.Validate(v); err != nil {
				t.Errorf("schema %s: fast check accepted %s, which the validator rejects: %v", raw, in, err)
			}
		}
	}
	if accepted < 10 {
		t.Errorf("the fast check accepted only %d instances: it is not exercised", accepted)
	}
}

func TestFlatSchemaAcceptsOrdinaryArguments(t *testing.T) {
	cases := map[string]string{
		flatSchemas[0]: `{"text":"The quick brown fox"}`,
		flatSchemas[1]: `{ "ms" : 250 }`,
		flatSchemas[2]: `{"b":false,"a":-12.5,"d":"x"}`,
		flatSchemas[3]: `{"n":7}`,
	}
	for schema, in := range cases {
		general, err := compileSchema([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		if f := compileFlat([]byte(schema), general); f == nil || !f.valid([]byte(in)) {
			t.Errorf("schema %s: %s not accepted by the fast check", schema, in)
		}
	}
}

func TestFlatSchemaDeclinesOtherSchemas(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":2}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x":{"type":"string"}}}`,
		`{"type":"object","minProperties":1}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"string"}}}`,
	} {
		general, err := compileSchema([]byte(raw))
		if err != nil {
			continue // not even compilable: nothing to decline
		}
		if compileFlat([]byte(raw), general) != nil {
			t.Errorf("fast check built for %s", raw)
		}
	}
}

func FuzzFlatSchemaAgreesWithTheValidator(f *testing.F) {
	for _, in := range flatInstances {
		f.Add(in)
	}
	var checks []*flatSchema
	var generals []interface{ Validate(any) error }
	for _, raw := range flatSchemas {
		general, err := compileSchema([]byte(raw))
		if err != nil {
			f.Fatal(err)
		}
		checks = append(checks, compileFlat([]byte(raw), general))
		generals = append(generals, general)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for i, c := range checks {
			if !c.valid([]byte(in)) {
				continue
			}
			v, err := toJSONValue([]byte(in))
			if err != nil {
				t.Fatalf("schema %d: accepted %q, which does not decode: %v", i, in, err)
			}
			if err := generals[i].Validate(v); err != nil {
				t.Fatalf("schema %d: accepted %q, which the validator rejects: %v", i, in, err)
			}
		}
	})
}
