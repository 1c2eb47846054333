package client_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
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
	case "mortal":
		// A server whose tool "die" makes it exit.
		rt, err := dispatch.New(mcp.Implementation{Name: "mortal", Version: "1"},
			dispatch.WithTool(mcp.Tool{Name: "die"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				os.Exit(4)
				return nil, nil
			}),
			dispatch.WithTool(mcp.Tool{Name: "pid"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult(fmt.Sprint(os.Getpid())), nil
			}))
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
	case "legacy-hangup":
		// An initialize-era server that exits when it sees a request it
		// does not know, as some do.
		f := &fake{w: os.Stdout, handle: func(f *fake, m *jsonrpc.Message) {
			if m.Method == "server/discover" {
				os.Exit(0)
			}
			legacyServer(mcp.Version20251125)(f, m)
		}}
		f.serve(os.Stdin)
		os.Exit(0)
	case "stubborn":
		// A server that ignores the end of its input and SIGTERM.
		stubborn()
	default:
		os.Exit(2)
	}
	testkit.VerifyTestMain(m)
}
