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

// VerifyNone fails t if goroutines other than the test's own are running.
func VerifyNone(t testing.TB) {
	t.Helper()
	goleak.VerifyNone(t)
}
