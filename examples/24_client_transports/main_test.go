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
	// The stdio transport starts this test binary as the server.
	if os.Getenv(serveEnv) != "" {
		if err := serve(slog.New(slog.DiscardHandler)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	testkit.VerifyTestMain(m)
}

func TestCheckPasses(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "check: direct, stdio, http agree") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// TestCheckFails: -check fails when a transport's results differ from the
// expected ones.
func TestCheckFails(t *testing.T) {
	saved := expected
	defer func() { expected = saved }()
	expected.Upper = "something else"
	var out bytes.Buffer
	err := run(context.Background(), &out, true)
	if err == nil || !strings.Contains(err.Error(), "direct, stdio, http") {
		t.Fatalf("err %v\n%s", err, out.String())
	}
}
