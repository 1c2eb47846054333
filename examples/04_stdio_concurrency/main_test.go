package main

import (
	"io"
	"os"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) {
	// The -check mode starts this program again with -serve as the
	// server; under go test, this program is the test binary.
	if len(os.Args) == 2 && os.Args[1] == "-serve" {
		os.Exit(runServer("warn"))
	}
	testkit.VerifyTestMain(m)
}

// TestCheck runs the -check mode in process (the server is a child
// process, as with go run).
func TestCheck(t *testing.T) {
	for _, f := range demo(io.Discard) {
		t.Error(f)
	}
}
