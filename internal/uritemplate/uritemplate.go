// Package uritemplate parses the RFC 6570 URI templates MCP resource
// templates use, matches concrete URIs against them and expands them.
//
// Supported expressions: simple "{v}", reserved "{+v}", path segments
// "{/v}" and "{/v*}", form-style query "{?a,b}" and query continuation
// "{&x}". A template is at most 1,024 bytes with at most 32 variables.
// Matching makes one left-to-right pass over the URI with no
// backtracking, so its cost is linear in the URI's length.
package uritemplate

import (
	"errors"
	"fmt"
	"strings"
)

// Limits on a template.
const (
	MaxTemplateBytes = 1024
	MaxVariables     = 32
)

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("uritemplate: invalid template")

// operator is an expression's RFC 6570 operator.
type operator byte

const (
	opSimple   operator = 0
	opReserved operator = '+'
	opPath     operator = '/'
	opQuery    operator = '?'
	opCont     operator = '&'
)

type varspec struct {
	name    string
	explode bool
}

// part is a literal (vars == nil) or an expression.
type part struct {
	literal string
	op      operator
	vars    []varspec
}

// Template is a parsed URI template. It is immutable and safe for
// concurrent use.
type Template struct {
	raw   string
	parts []part
	names []string
}

// Values holds the variables of a matched URI, like url.Values: a
// variable is absent, has one value, or several (an exploded list).
type Values map[string][]string

// Get returns the first value of name, or "".
func (v Values) Get(name string) string {
	if vs := v[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Has reports whether name was matched.
func (v Values) Has(name string) bool {
	_, ok := v[name]
	return ok
}

// Parse parses a template.
func Parse(s string) (*Template, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrInvalid)
	}
	if len(s) > MaxTemplateBytes {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxTemplateBytes)
	}
	t := &Template{raw: s}
	seen := map[string]bool{}
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '{')
		if open < 0 {
			if err := checkLiteral(s[i:]); err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{literal: s[i:]})
			break
		}
		if open > 0 {
			if err := checkLiteral(s[i : i+open]); err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{literal: s[i : i+open]})
		}
		i += open
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%w: unclosed expression at byte %d", ErrInvalid, i)
		}
		p, err := parseExpression(s[i+1 : i+end])
		if err != nil {
			return nil, err
		}
		for _, v := range p.vars {
			if seen[v.name] {
				return nil, fmt.Errorf("%w: variable %q appears twice", ErrInvalid, v.name)
			}
			seen[v.name] = true
			t.names = append(t.names, v.name)
		}
		if len(t.names) > MaxVariables {
			return nil, fmt.Errorf("%w: more than %d variables", ErrInvalid, MaxVariables)
		}
		if n := len(t.parts); n > 0 && t.parts[n-1].vars != nil && !canFollow(t.parts[n-1].op, p.op) {
			return nil, fmt.Errorf("%w: adjacent expressions at byte %d cannot be told apart", ErrInvalid, i)
		}
		t.parts = append(t.parts, p)
		i += end + 1
	}
	return t, nil
}

// MustParse is Parse for templates known to be valid; it panics otherwise.
func MustParse(s string) *Template {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

func checkLiteral(s string) error {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '}':
			return fmt.Errorf("%w: unmatched '}'", ErrInvalid)
		case c <= ' ' || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '|':
			return fmt.Errorf("%w: character %q not allowed in a literal", ErrInvalid, c)
		}
	}
	return nil
}

func parseExpression(e string) (part, error) {
	if e == "" {
		return part{}, fmt.Errorf("%w: empty expression", ErrInvalid)
	}
	p := part{op: opSimple}
	switch e[0] {
	case '+', '/', '?', '&':
		p.op = operator(e[0])
		e = e[1:]
	case '#', '.', ';', '=', ',', '!', '@', '|':
		return part{}, fmt.Errorf("%w: operator %q is not supported", ErrInvalid, e[0])
	}
	for spec := range strings.SplitSeq(e, ",") {
		v := varspec{name: spec}
		if strings.HasSuffix(spec, "*") {
			v.name, v.explode = spec[:len(spec)-1], true
			if p.op != opPath {
				return part{}, fmt.Errorf("%w: explode is supported only in {/var*}", ErrInvalid)
			}
		}
		if strings.IndexByte(v.name, ':') >= 0 {
			return part{}, fmt.Errorf("%w: prefix modifiers are not supported", ErrInvalid)
		}
		if !validName(v.name) {
			return part{}, fmt.Errorf("%w: bad variable name %q", ErrInvalid, v.name)
		}
		p.vars = append(p.vars, v)
	}
	return p, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// canFollow reports whether an expression with operator next may directly
// follow one with operator prev. The second must start with its own marker
// character, which is what lets a match find where it begins, and the
// marker must not be one the first expression's own expansion repeats.
func canFollow(prev, next operator) bool {
	switch next {
	case opPath:
		return prev != opPath
	case opQuery:
		return prev != opQuery && prev != opCont
	case opCont:
		return true
	}
	return false
}

// String returns the template as written.
func (t *Template) String() string { return t.raw }

// Names returns the variable names in order of appearance.
func (t *Template) Names() []string { return append([]string(nil), t.names...) }

// HasVariable reports whether the template declares name.
func (t *Template) HasVariable(name string) bool {
	for _, n := range t.names {
		if n == name {
			return true
		}
	}
	return false
}
