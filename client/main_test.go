package client_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// serverEnv makes the test binary act as a stdio MCP server, so the
// Command transport can spawn a real process without building one.
const serverEnv = "SNODO_CLIENT_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "":
	case "stdio":
		rt, err := newRuntime()
		if err == nil {
			err = stdio.Serve(context.Background(), rt)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "exit":
		// A server that dies at once.
		os.Exit(3)
	case "stubborn":
		// A server that ignores the end of its input and SIGTERM.
		stubborn()
	default:
		os.Exit(2)
	}
	testkit.VerifyTestMain(m)
}
