//go:build race

package testfixture

// raceEnabled reports whether this binary runs with the race detector.
const raceEnabled = true
