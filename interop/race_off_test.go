//go:build !race

package interop

// raceBuild: see race_on_test.go.
const raceBuild = false
