package actors

import (
	"testing"

	"go.uber.org/goleak"
)

// testkit imports this package, so its tests use goleak directly.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
