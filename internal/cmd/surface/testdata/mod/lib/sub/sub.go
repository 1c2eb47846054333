// Package sub is documented throughout.
package sub

// One is the only name.
func One() {}
