package client

// Mcp-Param headers: which tool arguments travel as HTTP headers, and their values.

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// paramHeader is one x-mcp-header annotation of a tool's input schema:
// the argument at path (property names from the root) is mirrored in the
// header Mcp-Param-<name>.
type paramHeader struct {
	path   []string
	header string // full header name
	kind   string // string, integer or boolean
}

const maxSafeInteger = 1<<53 - 1

// paramHeaders reads the x-mcp-header annotations of an input schema and
// checks the rules a client must enforce: each annotation is a non-empty
// RFC 9110 token, unique case-insensitively, on a string, integer or
// boolean property reached from the root through "properties" only.
func paramHeaders(schema []byte) ([]paramHeader, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var root any
	if err := jsonwire.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var out []paramHeader
	seen := map[string]bool{}
	var walk func(node any, path []string, reachable bool) error
	walk = func(node any, path []string, reachable bool) error {
		switch n := node.(type) {
		case []any:
			for _, v := range n {
				if err := walk(v, nil, false); err != nil {
					return err
				}
			}
		case map[string]any:
			if raw, ok := n["x-mcp-header"]; ok {
				name, isString := raw.(string)
				switch {
				case !reachable || len(path) == 0:
					return errors.New("x-mcp-header is only allowed on properties reached through \"properties\"")
				case !isString || !isToken(name):
					return fmt.Errorf("x-mcp-header %v is not an HTTP token", raw)
				case seen[strings.ToLower(name)]:
					return fmt.Errorf("x-mcp-header %q is used twice", name)
				}
				kind, _ := n["type"].(string)
				switch kind {
				case "string", "integer", "boolean":
				default:
					return fmt.Errorf("x-mcp-header %q is on a property of type %q", name, kind)
				}
				seen[strings.ToLower(name)] = true
				out = append(out, paramHeader{path: path, header: "Mcp-Param-" + name, kind: kind})
			}
			for key, v := range n {
				if key == "properties" {
					props, ok := v.(map[string]any)
					if !ok {
						continue
					}
					for name, child := range props {
						p := append(append([]string(nil), path...), name)
						if err := walk(child, p, reachable); err != nil {
							return err
						}
					}
					continue
				}
				if err := walk(v, nil, false); err != nil {
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

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// paramHeaderValues returns the Mcp-Param-* headers for a call's
// arguments: for each annotated argument present and not null, its value
// in header form.
func paramHeaderValues(hs []paramHeader, args []byte) map[string]string {
	if len(hs) == 0 || len(args) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		v := args
		ok := true
		for _, name := range h.path {
			if v, ok = jsonwire.Member(v, name); !ok {
				break
			}
		}
		if !ok || len(v) == 0 {
			continue
		}
		switch c := v[0]; {
		case c == '"':
			s, ok := jsonwire.Unquote(v)
			if ok {
				out[h.header] = headerValue(s)
			}
		case c == 't' || c == 'f':
			out[h.header] = string(v)
		case c == '-' || (c >= '0' && c <= '9'):
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				out[h.header] = strconv.FormatInt(n, 10)
			} else if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= maxSafeInteger {
				out[h.header] = strconv.FormatInt(int64(f), 10)
			} else {
				out[h.header] = string(v)
			}
		}
	}
	return out
}

// headerValue returns s as an HTTP header value: as it is when it is
// plain visible ASCII (spaces inside allowed) that cannot be mistaken for
// the encoded form, otherwise =?base64?<base64 of its UTF-8>?=.
func headerValue(s string) string {
	safe := s == strings.TrimSpace(s)
	for i := 0; safe && i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			safe = false
		}
	}
	if safe && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
