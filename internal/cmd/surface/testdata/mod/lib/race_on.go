//go:build race

package lib

// Race reports whether the race detector is on.
const Race = true
