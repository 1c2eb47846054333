// This file writes JSON strings and values with every non-ASCII character
// escaped.

package jsonwire

import (
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendRuneEscaped writes r (>= 0x80) as \uXXXX, or as a surrogate pair
// above U+FFFF.
func appendRuneEscaped(b []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendU4(appendU4(b, hi), lo)
	}
	return appendU4(b, r)
}

// EscapeNonASCII rewrites every non-ASCII character of an encoded JSON
// value as a \u escape (a surrogate pair above U+FFFF), so the bytes never
// depend on the device's encoding. Invalid UTF-8 becomes \ufffd. Input that
// is already ASCII is returned unchanged, without copying.
func EscapeNonASCII(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return b
	}
	// Each non-ASCII byte grows by at most 2 (a 4-byte rune becomes a
	// 12-byte surrogate pair; invalid bytes become 6-byte \ufffd, at most
	// +5 for one byte, but such bytes only come from invalid input, where
	// append may grow the buffer once more).
	extra := 0
	for _, c := range b[i:] {
		if c >= utf8.RuneSelf {
			extra += 2
		}
	}
	out := make([]byte, 0, len(b)+extra)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		out = appendRuneEscaped(out, r) // RuneError for invalid input
		i += size
	}
	return out
}

// appendString appends s as a JSON string with ASCII-only output.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			b = appendRuneEscaped(b, r)
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = appendU4(b, rune(c))
		}
		i++
	}
	return append(b, '"')
}

// AppendString appends s as a JSON string whose bytes are all ASCII.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }
