package main

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// TestCheck runs the -check mode in process.
func TestCheck(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := run(context.Background(), logger, "127.0.0.1:0", "test-token", true); err != nil {
		t.Fatal(err)
	}
}
