package uritemplate

// Matching a URI against a template (RFC 6570) and reading back its values.

import (
	"strings"
)

// Match reports whether uri is an expansion of t and returns its
// variables. Values are percent-decoded, except those of reserved "{+v}"
// expressions, which are returned as they appear.
//
// Each expression takes the shortest extent that reaches the following
// literal, so "{+path}.json" matches "a.b.json" with path "a.b". Simple and
// reserved variables must not be empty; path and query variables may be
// absent. A query may carry only the template's own variables.
func (t *Template) Match(uri string) (Values, bool) {
	vals := Values{}
	pos := 0
	for k := 0; k < len(t.parts); k++ {
		p := t.parts[k]
		if p.vars == nil {
			if !strings.HasPrefix(uri[pos:], p.literal) {
				return nil, false
			}
			pos += len(p.literal)
			continue
		}
		// A query expression and the continuations after it share one
		// query section.
		group := []part{p}
		if p.op == opQuery || p.op == opCont {
			for k+1 < len(t.parts) && t.parts[k+1].op == opCont && t.parts[k+1].vars != nil {
				k++
				group = append(group, t.parts[k])
			}
		}
		runEnd := pos + classRun(uri[pos:], p.op)
		end := runEnd
		if k+1 < len(t.parts) {
			next := t.parts[k+1]
			if next.vars == nil {
				i := strings.Index(uri[pos:], next.literal)
				if i < 0 || pos+i > runEnd {
					return nil, false
				}
				end = pos + i
			} else if i := strings.IndexByte(uri[pos:runEnd], byte(next.op)); i >= 0 {
				end = pos + i
			}
		}
		if !assign(vals, group, uri[pos:end]) {
			return nil, false
		}
		pos = end
	}
	if pos != len(uri) {
		return nil, false
	}
	return vals, true
}

// classRun returns the length of the longest prefix of s made of the
// characters an expansion with op may contain.
func classRun(s string, op operator) int {
	for i := 0; i < len(s); i++ {
		if !inClass(s[i], op) {
			return i
		}
	}
	return len(s)
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func subDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

func inClass(c byte, op operator) bool {
	switch op {
	case opReserved:
		return c > ' ' && c < 0x7f && strings.IndexByte("\"<>\\^`{|}", c) < 0
	case opPath:
		return unreserved(c) || c == '%' || c == '/' || c == ','
	case opQuery, opCont:
		return unreserved(c) || c == '%' || c == '?' || c == '&' || c == '=' || subDelim(c)
	default:
		return unreserved(c) || c == '%' || c == ','
	}
}

// assign splits one expression's extent into its variables.
func assign(vals Values, group []part, s string) bool {
	p := group[0]
	switch p.op {
	case opReserved:
		// A reserved expansion copies a value's escapes but encodes a
		// stray '%', so a malformed escape is not an expansion.
		if s == "" || !validEscapes(s) {
			return false
		}
		if len(p.vars) == 1 {
			vals[p.vars[0].name] = []string{s}
			return true
		}
		return assignList(vals, p.vars, strings.Split(s, ","), false)
	case opSimple:
		if s == "" {
			return false
		}
		return assignList(vals, p.vars, strings.Split(s, ","), true)
	case opPath:
		if s == "" {
			return true
		}
		if s[0] != '/' {
			return false
		}
		segs := strings.Split(s[1:], "/")
		if len(p.vars) == 1 && p.vars[0].explode {
			out := make([]string, len(segs))
			for i, seg := range segs {
				d, ok := decode(seg)
				if !ok {
					return false
				}
				out[i] = d
			}
			vals[p.vars[0].name] = out
			return true
		}
		return assignList(vals, p.vars, segs, true)
	default: // query and continuation
		if s == "" {
			return true
		}
		// A query whose own variables are all undefined expands to
		// nothing, and the continuations after it then start with '&'.
		skipQuery := p.op == opQuery && s[0] == '&' && len(group) > 1
		if s[0] != byte(p.op) && !skipQuery {
			return false
		}
		declared := map[string]bool{}
		for i, g := range group {
			if i == 0 && skipQuery {
				continue
			}
			for _, v := range g.vars {
				declared[v.name] = true
			}
		}
		for pair := range strings.SplitSeq(s[1:], "&") {
			name, value, _ := strings.Cut(pair, "=")
			if !declared[name] || vals.Has(name) {
				return false
			}
			d, ok := decode(value)
			if !ok {
				return false
			}
			vals[name] = []string{d}
		}
		return true
	}
}

func assignList(vals Values, vars []varspec, pieces []string, dec bool) bool {
	if len(pieces) > len(vars) {
		return false
	}
	for i, piece := range pieces {
		v := piece
		if dec {
			d, ok := decode(piece)
			if !ok {
				return false
			}
			v = d
		}
		vals[vars[i].name] = []string{v}
	}
	return true
}

// validEscapes reports whether every '%' in s starts a two-digit hex
// escape.
func validEscapes(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) {
			return false
		}
		if _, ok := unhex(s[i+1]); !ok {
			return false
		}
		if _, ok := unhex(s[i+2]); !ok {
			return false
		}
		s = s[i+3:]
	}
	return true
}

// decode percent-decodes s; a malformed escape is a failure.
func decode(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		h, ok1 := unhex(s[i+1])
		l, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(h<<4 | l)
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
