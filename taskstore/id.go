// This file generates and recognises task ids.

package taskstore

import (
	"crypto/rand"
	"strings"
)

// idLen is the length of an id from NewID.
const idLen = 26

// NewID returns a fresh task id: 26 characters of the base32 alphabet
// (A–Z, 2–7) from 130 random bits (crypto/rand.Text). It carries no
// information: no time, counter, host or principal.
func NewID() string { return rand.Text() }

// ValidID reports whether id has the form NewID produces. A server can
// refuse any other string as malformed before looking it up.
func ValidID(id string) bool {
	if len(id) != idLen {
		return false
	}
	return strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7')
	}) < 0
}
