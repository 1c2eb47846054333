// Naming a schema failure: which argument is wrong and what it should be,
// as "arguments.days: expected integer", never the value.

package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// explainer names where a value fails a schema. jsonschema-go, which
// decides validity, reports schema locations and quotes instance values in
// its messages; so once a value has failed, the same schema is compiled
// (once, on the first failure) by github.com/santhosh-tekuri/jsonschema,
// whose errors carry the instance location and the failed keyword as data,
// and the value is checked again there to find the place. Should the two
// disagree, the message falls back to the schema location jsonschema-go
// gave.
type explainer struct {
	raw  []byte
	once sync.Once
	s    *santhosh.Schema // nil when the schema does not compile there
}

func newExplainer(raw []byte) *explainer { return &explainer{raw: raw} }

// refuseLoader loads nothing: a schema's remote and file $refs are never
// fetched.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, errors.New("schemas are not fetched: " + url)
}

func (x *explainer) compile() {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(x.raw))
	if err != nil {
		return
	}
	c := santhosh.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(santhosh.Draft2020)
	const loc = "urn:snodo:schema"
	if c.AddResource(loc, doc) != nil {
		return
	}
	x.s, _ = c.Compile(loc)
}

// explain describes why value, named root ("arguments",
// "structuredContent"), failed with failure from jsonschema-go.
func (x *explainer) explain(root string, value any, failure error) string {
	x.once.Do(x.compile)
	if x.s != nil {
		var ve *santhosh.ValidationError
		if err := x.s.Validate(value); errors.As(err, &ve) {
			e := leafError(ve)
			return instancePath(root, value, e.InstanceLocation) + ": " + keywordMessage(e.ErrorKind)
		}
	}
	return schemaFailure(root, failure)
}

// leafError follows a validation error down to the first keyword that
// failed, past the wrappers for a whole schema, a $ref, allOf and
// if/then/else; anyOf and oneOf stay whole (no one branch is "the"
// failure). Among several causes the first by instance location wins, so
// the message is the same on every call.
func leafError(e *santhosh.ValidationError) *santhosh.ValidationError {
	for len(e.Causes) > 0 {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		default:
			return e
		}
		causes := slices.Clone(e.Causes)
		slices.SortStableFunc(causes, func(a, b *santhosh.ValidationError) int {
			return slices.Compare(a.InstanceLocation, b.InstanceLocation)
		})
		e = causes[0]
	}
	return e
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// instancePath writes a location in the value as root.user.tags[2]: an
// array element by its index, a property by its name (quoted in brackets
// when it is not an identifier).
func instancePath(root string, value any, loc []string) string {
	var b strings.Builder
	b.WriteString(root)
	for _, tok := range loc {
		switch v := value.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err == nil && i >= 0 && i < len(v) {
				b.WriteString("[" + tok + "]")
				value = v[i]
				continue
			}
		case map[string]any:
			value = v[tok]
		default:
			value = nil
		}
		writeProperty(&b, tok)
	}
	return b.String()
}

func writeProperty(b *strings.Builder, name string) {
	if identifier.MatchString(name) {
		b.WriteString("." + name)
		return
	}
	b.WriteString("[" + strconv.Quote(name) + "]")
}

// keywordMessage says what the failed keyword wanted. Property names and
// the schema's own values (enum members, bounds, patterns) may appear; the
// instance's values never do.
func keywordMessage(k santhosh.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "expected " + strings.Join(k.Want, " or ")
	case *kind.Required:
		return plural("missing required propert", "y", "ies", k.Missing)
	case *kind.DependentRequired:
		return plural("missing propert", "y", "ies", k.Missing) + " required with " + strconv.Quote(k.Prop)
	case *kind.Dependency:
		return plural("missing propert", "y", "ies", k.Missing) + " required with " + strconv.Quote(k.Prop)
	case *kind.AdditionalProperties:
		return plural("unexpected propert", "y", "ies", k.Properties)
	case *kind.Enum:
		if s, ok := schemaValues(k.Want); ok {
			return "expected one of " + s
		}
		return `expected one of the "enum" values`
	case *kind.Const:
		if s, ok := schemaValues([]any{k.Want}); ok {
			return "expected " + s
		}
		return `expected the "const" value`
	case *kind.Minimum:
		return "expected at least " + ratString(k.Want)
	case *kind.Maximum:
		return "expected at most " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "expected more than " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "expected less than " + ratString(k.Want)
	case *kind.MultipleOf:
		return "expected a multiple of " + ratString(k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("expected at least %d characters", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("expected at most %d characters", k.Want)
	case *kind.Pattern:
		return "expected to match " + strconv.Quote(k.Want)
	case *kind.Format:
		return "expected format " + strconv.Quote(k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("expected at least %d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("expected at most %d items", k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("expected unique items, [%d] and [%d] are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return fmt.Sprintf("expected at least %d properties", k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("expected at most %d properties", k.Want)
	case *kind.FalseSchema:
		return "not allowed"
	case *kind.AnyOf:
		return `expected to match one of the "anyOf" schemas`
	case *kind.OneOf:
		return `expected to match exactly one of the "oneOf" schemas`
	case *kind.Not:
		return `expected not to match the "not" schema`
	}
	return "fails " + strconv.Quote(strings.Join(k.KeywordPath(), "/"))
}

// plural names one or several properties: `unexpected property "nom"`,
// `unexpected properties "a", "b"`.
func plural(stem, one, many string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return stem + one + " " + q[0]
	}
	return stem + many + " " + strings.Join(q, ", ")
}

// schemaValues lists up to ten scalar values taken from a schema as JSON.
func schemaValues(vs []any) (string, bool) {
	if len(vs) == 0 || len(vs) > 10 {
		return "", false
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		switch v.(type) {
		case []any, map[string]any:
			return "", false
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", false
		}
		parts[i] = string(b)
	}
	return strings.Join(parts, ", "), true
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "the bound"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// schemaFailure names a failure from jsonschema-go's error alone, by the
// schema location and keyword: the fallback when the explainer cannot
// place it.
func schemaFailure(root string, err error) string {
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
	keyword, _, _ := strings.Cut(leaf.Error(), ":")
	if strings.HasPrefix(keyword, "unexpected additional properties") {
		keyword = "additionalProperties"
	}
	loc = strings.TrimPrefix(loc, "root")
	if loc == "" {
		return fmt.Sprintf("%s: fails %q", root, keyword)
	}
	return fmt.Sprintf("%s: fails %q at schema location %s", root, keyword, loc)
}

// decodeFailure names why arguments that passed the input schema do not
// decode into a typed tool's input type (the schema given was looser than
// the type): the field's path and the JSON type it needs.
func decodeFailure(args []byte, in any) string {
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal(args, in); errors.As(err, &te) {
		var b strings.Builder
		b.WriteString("arguments")
		if te.Field != "" {
			for _, f := range strings.Split(te.Field, ".") {
				writeProperty(&b, f)
			}
		}
		return b.String() + ": expected " + jsonType(te.Type)
	}
	return "arguments: do not match the tool's input type"
}

// jsonType is the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}
