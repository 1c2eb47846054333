//go:build race

package testkit

// raceEnabled reports whether this binary runs with the race detector.
const raceEnabled = true
