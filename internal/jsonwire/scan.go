// This file is the bounded scanner: syntax, UTF-8, nesting and digit runs
// checked in one pass that builds no values.

package jsonwire

import (
	"encoding/binary"
	"unicode/utf8"
)

// MaxNumberDigits bounds each digit run of a number literal (integer part,
// fraction, exponent). A longer run is a parse error found at its 65th
// digit, so a two-million-digit literal costs no more than 65 bytes of work.
const MaxNumberDigits = 64

// MaxDepth bounds the nesting of arrays and objects. Deeper input is a parse
// error found when the bound is crossed, before anything deeper is read.
const MaxDepth = 128

type scanErr uint8

const (
	scanOK scanErr = iota
	scanSyntax
	scanDigits
	scanDepth
	scanUTF8
)

func (e scanErr) message() string {
	switch e {
	case scanDigits:
		return "Parse error: number literal has more than 64 digits"
	case scanDepth:
		return "Parse error: nesting is too deep"
	case scanUTF8:
		return "Parse error: invalid UTF-8"
	}
	return "Parse error"
}

// scanner checks JSON syntax in one allocation-free pass. It never builds
// values; callers record the byte spans they need.
type scanner struct {
	data  []byte
	pos   int
	depth int
	err   scanErr
}

func (s *scanner) fail(e scanErr) bool {
	if s.err == scanOK {
		s.err = e
	}
	return false
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one JSON value starting at s.pos (after whitespace).
func (s *scanner) value() bool {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return s.fail(scanSyntax)
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(nil)
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail(scanSyntax)
}

func (s *scanner) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return s.fail(scanSyntax)
	}
	s.pos += len(lit)
	return true
}

// member is called by object for each member with the spans of its raw key
// (quotes included) and raw value. Returning false stops the scan.
type memberFunc func(key, value []byte) bool

func (s *scanner) object(member memberFunc) bool {
	s.depth++
	if s.depth > MaxDepth {
		return s.fail(scanDepth)
	}
	s.pos++ // '{'
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return true
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.fail(scanSyntax)
		}
		ks := s.pos
		if !s.str() {
			return false
		}
		key := s.data[ks:s.pos]
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.fail(scanSyntax)
		}
		s.pos++
		s.skipSpace()
		vs := s.pos
		if !s.value() {
			return false
		}
		if member != nil && !member(key, s.data[vs:s.pos]) {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.fail(scanSyntax)
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return true
		default:
			return s.fail(scanSyntax)
		}
	}
}

func (s *scanner) array() bool {
	s.depth++
	if s.depth > MaxDepth {
		return s.fail(scanDepth)
	}
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.fail(scanSyntax)
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return true
		default:
			return s.fail(scanSyntax)
		}
	}
}

func (s *scanner) str() bool {
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		// Most string bytes are plain ASCII: skip runs of them before
		// looking at anything special.
		s.pos = skipPlain(s.data, s.pos)
		if s.pos >= len(s.data) {
			break
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return true
		case c == '\\':
			s.pos++
			if s.pos >= len(s.data) {
				return s.fail(scanSyntax)
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				if len(s.data)-s.pos < 5 {
					return s.fail(scanSyntax)
				}
				for _, h := range s.data[s.pos+1 : s.pos+5] {
					if !isHex(h) {
						return s.fail(scanSyntax)
					}
				}
				s.pos += 5
			default:
				return s.fail(scanSyntax)
			}
		case c < 0x20:
			return s.fail(scanSyntax)
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size <= 1 {
				return s.fail(scanUTF8)
			}
			s.pos += size
		}
	}
	return s.fail(scanSyntax)
}

// plainStringByte marks the bytes that may appear in a JSON string as
// themselves: printable ASCII other than the quote and the backslash.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipPlain returns the index of the first byte of data at or after i
// that is not a plainStringByte, or len(data): eight bytes at a time while
// all eight are plain, then one at a time.
func skipPlain(data []byte, i int) int {
	for len(data)-i >= 8 && !hasSpecialByte(binary.LittleEndian.Uint64(data[i:])) {
		i += 8
	}
	for i < len(data) && plainStringByte[data[i]] {
		i++
	}
	return i
}

// hasSpecialByte reports whether any of the eight bytes in w is not a
// plainStringByte: a control byte, the quote, the backslash or a byte of
// 0x80 and above. Each term is the classic test for a byte below a bound
// ((x - n·ones) &^ x, high bits); a borrow can mark a byte wrongly only
// above a byte marked rightly, so the answer for the word is exact.
func hasSpecialByte(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((w-ones*0x20)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash|w)&highs != 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// digits consumes a run of decimal digits, failing at the 65th.
func (s *scanner) digits() (int, bool) {
	n := 0
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c < '0' || c > '9' {
			break
		}
		n++
		if n > MaxNumberDigits {
			return n, s.fail(scanDigits)
		}
		s.pos++
	}
	return n, true
}

func (s *scanner) number() bool {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(s.data) {
		return s.fail(scanSyntax)
	}
	if s.data[s.pos] == '0' {
		s.pos++
		if s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			return s.fail(scanSyntax) // leading zero
		}
	} else {
		n, ok := s.digits()
		if !ok {
			return false
		}
		if n == 0 {
			return s.fail(scanSyntax)
		}
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		n, ok := s.digits()
		if !ok {
			return false
		}
		if n == 0 {
			return s.fail(scanSyntax)
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		n, ok := s.digits()
		if !ok {
			return false
		}
		if n == 0 {
			return s.fail(scanSyntax)
		}
	}
	return true
}

// Valid reports whether data is exactly one JSON value within the shared
// bounds (digits, depth, UTF-8), with nothing but whitespace after it.
func Valid(data []byte) bool {
	s := scanner{data: data}
	if !s.value() {
		return false
	}
	s.skipSpace()
	return s.pos == len(data)
}

// Scan checks that data is exactly one JSON value within the bounds, with
// nothing but whitespace around it. When the value is an object, member
// sees each of its members (raw key with quotes, raw value) in order. It
// returns the first byte of the value (0 for empty input) and, when data
// fails the check, the message of the JSON-RPC parse error that describes
// why ("" when it passes).
func Scan(data []byte, member func(key, value []byte) bool) (first byte, problem string) {
	s := scanner{data: data}
	s.skipSpace()
	if s.pos >= len(data) {
		return 0, scanSyntax.message()
	}
	first = data[s.pos]
	var ok bool
	if first == '{' {
		ok = s.object(member)
	} else {
		ok = s.value()
	}
	if !ok {
		return first, s.err.message()
	}
	s.skipSpace()
	if s.pos != len(data) {
		return first, scanSyntax.message()
	}
	return first, ""
}
