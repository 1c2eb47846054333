package actors

import (
	"testing"

	"go.uber.org/goleak"
)

// testkit imports this package, so the leak check is wired directly.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
