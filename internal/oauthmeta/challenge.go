// WWW-Authenticate challenges: parsing (RFC 9110 §11.6.1) and the Bearer
// challenges a resource server sends (RFC 6750 §3, RFC 9728 §5.1).
package oauthmeta

import (
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header.
type Challenge struct {
	// Scheme is the authentication scheme, as sent ("Bearer").
	Scheme string
	// Params holds the auth-params by lower-cased name, values unquoted.
	Params map[string]string
}

// Bearer returns the first Bearer challenge among the header values, or
// nil.
func Bearer(values []string) *Challenge {
	for _, c := range ParseChallenges(values) {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return &c
		}
	}
	return nil
}

// ParseChallenges parses WWW-Authenticate header values. What cannot be
// parsed ends the value it is in; the challenges before it are kept.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		p := &parser{s: v}
		for {
			p.skip(" \t,")
			scheme := p.token()
			if scheme == "" {
				break
			}
			c := Challenge{Scheme: scheme, Params: map[string]string{}}
			p.params(&c)
			out = append(out, c)
		}
	}
	return out
}

type parser struct {
	s string
	i int
}

func (p *parser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// params reads the auth-params of one challenge, up to the next
// challenge's scheme or the end.
func (p *parser) params(c *Challenge) {
	for {
		save := p.i
		p.skip(" \t,")
		name := p.token()
		if name == "" {
			return
		}
		p.skip(" \t")
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			p.i = save // the next challenge's scheme
			return
		}
		p.i++
		p.skip(" \t")
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			var ok bool
			if val, ok = p.quoted(); !ok {
				p.i = len(p.s)
				return
			}
		} else {
			val = p.token()
		}
		c.Params[strings.ToLower(name)] = val
	}
}

// quoted reads a quoted-string, unescaping quoted-pairs.
func (p *parser) quoted() (string, bool) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch {
		case ch == '"':
			p.i++
			return b.String(), true
		case ch == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(ch)
			p.i++
		}
	}
	return "", false
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/:", c) >= 0 // token chars, plus / and : for URLs seen unquoted
}

// Param is one auth-param of a challenge being written.
type Param struct {
	Name, Value string
}

// FormatBearer writes a Bearer challenge with params in the order given,
// each value a quoted-string; params with an empty value are left out.
func FormatBearer(params ...Param) string {
	var b strings.Builder
	b.WriteString("Bearer")
	first := true
	for _, p := range params {
		if p.Value == "" {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		b.WriteString(`="`)
		for i := 0; i < len(p.Value); i++ {
			c := p.Value[i]
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			if c < 0x20 || c == 0x7f {
				c = ' ' // no control characters in a header
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	return b.String()
}
