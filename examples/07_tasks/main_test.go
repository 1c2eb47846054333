package main

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// TestCheck runs the -check mode in process.
func TestCheck(t *testing.T) {
	if err := checks(context.Background()); err != nil {
		t.Fatal(err)
	}
}
