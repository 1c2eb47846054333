package uritemplate

// Expanding a URI template (RFC 6570) with values.

import "strings"

// Expand substitutes vals into t. Undefined variables are left out, as RFC
// 6570 says; values are percent-encoded except in reserved expressions,
// which keep reserved characters and existing escapes.
func (t *Template) Expand(vals Values) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.vars == nil {
			b.WriteString(p.literal)
			continue
		}
		first := true
		for _, v := range p.vars {
			vs, ok := vals[v.name]
			if !ok || len(vs) == 0 {
				continue
			}
			switch p.op {
			case opSimple, opReserved:
				if !first {
					b.WriteByte(',')
				}
				encodeInto(&b, vs[0], p.op == opReserved)
			case opPath:
				if v.explode {
					for _, s := range vs {
						b.WriteByte('/')
						encodeInto(&b, s, false)
					}
				} else {
					b.WriteByte('/')
					encodeInto(&b, vs[0], false)
				}
			default:
				if first {
					b.WriteByte(byte(p.op))
				} else {
					b.WriteByte('&')
				}
				b.WriteString(v.name)
				b.WriteByte('=')
				encodeInto(&b, vs[0], false)
			}
			first = false
		}
	}
	return b.String()
}

const hexDigits = "0123456789ABCDEF"

func encodeInto(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved(c):
			b.WriteByte(c)
		case reserved && (subDelim(c) || strings.IndexByte(":/?#[]@", c) >= 0):
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
}

func isHex(c byte) bool { _, ok := unhex(c); return ok }
