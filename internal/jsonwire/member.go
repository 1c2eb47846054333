// This file reads the members of an already checked JSON object without
// decoding it.

package jsonwire

// Member returns the raw value of the first member called name in a JSON
// object that has already passed the decoder or [Valid], and whether it was
// found. It decodes nothing and allocates nothing, unless a key is escaped.
func Member(object []byte, name string) ([]byte, bool) {
	s := scanner{data: object}
	s.skipSpace()
	if s.pos >= len(object) || object[s.pos] != '{' {
		return nil, false
	}
	var found []byte
	s.object(func(key, value []byte) bool {
		if KeyEquals(key, name) {
			found = value
			return false
		}
		return true
	})
	return found, found != nil
}

// Members calls fn for each member of a JSON object that has already passed
// the decoder or [Valid], with the raw key (quotes included) and raw value. It
// stops when fn returns false, and reports false if object is not an
// object.
func Members(object []byte, fn func(key, value []byte) bool) bool {
	s := scanner{data: object}
	s.skipSpace()
	if s.pos >= len(object) || object[s.pos] != '{' {
		return false
	}
	s.object(fn)
	return true
}

// KeyEquals reports whether key, a raw member key as [Members] passes it
// (quotes included), names name once unescaped. It allocates only when
// the key is escaped.
func KeyEquals(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	for _, c := range key {
		if c == '\\' {
			s, ok := Unquote(key)
			return ok && s == name
		}
	}
	return false
}
