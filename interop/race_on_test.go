//go:build race

package interop

// raceBuild: with the race detector on, the programs under test are built
// with it too, so a race in a server makes it exit with status 66.
const raceBuild = true
