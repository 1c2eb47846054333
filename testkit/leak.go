// This file checks that no goroutine outlives a test.

package testkit

import (
	"testing"

	"go.uber.org/goleak"
)

// VerifyTestMain runs a package's tests and fails the run if any goroutine
// outlives them. It uses no ignore options: a goroutine that outlives its
// owner is a bug.
func VerifyTestMain(m *testing.M) { goleak.VerifyTestMain(m) }
