package proxy_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// serverEnv makes the test binary a stdio MCP server, the remote a
// Command transport spawns.
const serverEnv = "SNODO_PROXY_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "mortal" {
		if err := serveMortal(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testkit.VerifyTestMain(m)
}

// serveMortal serves a remote whose tool "die" ends its process, "pid"
// names it, and "grow" adds a tool (a list change).
func serveMortal() error {
	hb := hub.New(hub.Options{})
	reg := hub.NewRegistry(hb)
	text := func(s func() string) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(s()), nil
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "mortal", Version: "1.0.0"},
		dispatch.WithSubscriptions(hb), dispatch.WithCatalog(reg),
		dispatch.WithTool(mcp.Tool{Name: "die"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(4)
			return nil, nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "pid"}, text(func() string { return fmt.Sprint(os.Getpid()) })),
		dispatch.WithTool(mcp.Tool{Name: "grow"}, text(func() string {
			_ = reg.AddTool(mcp.Tool{Name: "grown"}, text(func() string { return "grown" }))
			return "grew"
		})))
	if err != nil {
		return err
	}
	return stdio.Serve(context.Background(), rt)
}
