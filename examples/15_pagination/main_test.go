package main

import (
	"testing"

	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// TestCheck runs the -check mode in process.
func TestCheck(t *testing.T) {
	if err := excheck.Check(newRuntime, checks); err != nil {
		t.Fatal(err)
	}
}
