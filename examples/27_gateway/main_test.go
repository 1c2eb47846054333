package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) {
	// The gateway starts this test binary as the notes server.
	if os.Getenv(serveEnv) != "" {
		if err := serveNotes(slog.New(slog.DiscardHandler)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	testkit.VerifyTestMain(m)
}

func TestCheckPasses(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), slog.New(slog.DiscardHandler), &out, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "check: local, notes") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// TestCheckFails: -check fails when an answer through the gateway
// differs from the expected one.
func TestCheckFails(t *testing.T) {
	saved := expected
	defer func() { expected = saved }()
	expected.Forecast = "rain"
	var out bytes.Buffer
	err := run(context.Background(), slog.New(slog.DiscardHandler), &out, true)
	if err == nil || !strings.Contains(err.Error(), "check failed") {
		t.Fatalf("err %v\n%s", err, out.String())
	}
}
