package main

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) {
	// The -check mode starts this program again with -serve as the
	// server; under go test, this program is the test binary.
	if len(os.Args) == 2 && os.Args[1] == "-serve" {
		os.Exit(runServer(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	}
	testkit.VerifyTestMain(m)
}

// TestCheck runs the -check mode in process (the server is a child
// process, as with go run).
func TestCheck(t *testing.T) {
	for _, f := range demo(io.Discard, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))) {
		t.Error(f)
	}
}
