package mcp

import (
	"testing"

	"go.uber.org/goleak"
)

// The vocabulary starts no goroutines; the check keeps it that way.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
