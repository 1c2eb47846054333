package main

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCheck runs the example's -check path in process.
func TestCheck(t *testing.T) {
	if err := run(context.Background(), "127.0.0.1:0", true); err != nil {
		t.Fatal(err)
	}
}
