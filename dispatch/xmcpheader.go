// x-mcp-header annotations on tool input schemas, checked in New.

package dispatch

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/snodo-go/snodo/mcp"
)

// headerParam is one tool argument mirrored into an Mcp-Param-* HTTP
// header by an x-mcp-header annotation (2026-07-28).
type headerParam struct {
	// header is the full header name, "Mcp-Param-" + the annotation.
	header string
	// path is the chain of property names from the arguments object.
	path []string
	// typ is "string", "integer" or "boolean".
	typ string
}

// Keywords whose value is one subschema, a map of subschemas or a list of
// subschemas. Anything else is data (enum, const, default, examples…) or
// an unknown keyword, and is not searched for annotations.
var (
	schemaKeywords    = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
	schemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaListKeyword = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// headerParams finds and checks every x-mcp-header annotation of an input
// schema: the value is a non-empty RFC 9110 token, unique ignoring case,
// on a property of type string, integer or boolean that is reached from
// the root through "properties" alone.
func headerParams(inputSchema []byte) ([]headerParam, error) {
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, err
	}
	var out []headerParam
	seen := map[string]bool{}
	var walk func(node any, path []string, static bool) error
	walk = func(node any, path []string, static bool) error {
		obj, ok := node.(map[string]any)
		if !ok {
			// Draft-07 "items" may be a list of schemas.
			if list, isList := node.([]any); isList {
				for _, n := range list {
					if err := walk(n, path, false); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if raw, has := obj["x-mcp-header"]; has {
			where := "/" + strings.Join(path, "/")
			name, isString := raw.(string)
			switch {
			case !isString || name == "":
				return fmt.Errorf("x-mcp-header at %s must be a non-empty string", where)
			case !isToken(name):
				return fmt.Errorf("x-mcp-header %q at %s is not an HTTP token", name, where)
			case !static || len(path) == 0:
				return fmt.Errorf("x-mcp-header %q at %s is not on a property reached through \"properties\" alone", name, where)
			case seen[strings.ToLower(name)]:
				return fmt.Errorf("x-mcp-header %q appears twice (names are compared ignoring case)", name)
			}
			typ, _ := obj["type"].(string)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("x-mcp-header %q at %s must be on a property of type string, integer or boolean", name, where)
			}
			seen[strings.ToLower(name)] = true
			out = append(out, headerParam{header: mcp.HeaderParamPrefix + name, path: append([]string(nil), path...), typ: typ})
		}
		for _, k := range schemaMapKeywords {
			m, _ := obj[k].(map[string]any)
			for _, name := range sortedKeys(m) {
				if err := walk(m[name], append(path, name), static && k == "properties"); err != nil {
					return err
				}
			}
		}
		for _, k := range schemaKeywords {
			if sub, has := obj[k]; has {
				if err := walk(sub, path, false); err != nil {
					return err
				}
			}
		}
		for _, k := range schemaListKeyword {
			list, _ := obj[k].([]any)
			for _, sub := range list {
				if err := walk(sub, path, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, true); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
