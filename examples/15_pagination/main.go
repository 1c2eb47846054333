// Command 15_pagination pages long lists. With a page size of 1 every
// cursor boundary shows: each list result carries nextCursor until the
// last page. A cursor is opaque and bound to the list it came from (its
// method, protocol version, page size and a digest of the items), so a
// cursor from another list, or one the client made up, is -32602.
//
//	go run ./examples/15_pagination          # serves over stdio
//	go run ./examples/15_pagination -check   # walks every page in process
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/stdio"
)

func newRuntime() (*dispatch.Runtime, error) {
	opts := []dispatch.Option{
		// The default page size is 100; 1 shows every boundary.
		dispatch.WithLimits(dispatch.Limits{PageSize: 1}),
	}
	for _, name := range []string{"alpha", "bravo", "charlie"} {
		opts = append(opts, dispatch.WithTool(mcp.Tool{Name: name, Description: "Tool " + name + "."},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult(name), nil
			}))
	}
	for _, name := range []string{"one", "two"} {
		opts = append(opts, dispatch.WithPrompt(mcp.Prompt{Name: name},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text(name)}}}, nil
			}))
	}
	return dispatch.New(mcp.Implementation{Name: "paged", Version: "1.0.0"}, opts...)
}

func main() {
	check := flag.Bool("check", false, "walk every page in process and exit non-zero on failure")
	flag.Parse()
	rt, err := newRuntime()
	if err != nil {
		fmt.Fprintln(os.Stderr, "invalid server definition:", err)
		os.Exit(1)
	}
	if *check {
		excheck.Exit(checks(rt))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := stdio.Serve(ctx, rt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
