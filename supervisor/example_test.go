package supervisor_test

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
)

// Tree takes a snapshot of the live tree; its String is the indented text
// an operator reads. With transports running, their connections, writers
// and in-flight requests appear under the root beside the executor.
func ExampleSupervisor_Tree() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		panic(err)
	}
	defer sup.Close(context.Background())
	fmt.Print(sup.Tree())
	// Output:
	// supervisor snodo
	// └── executor snodo/executor cancelled=0 max_concurrency=32 max_queue=256 queued=0 rejected=0 running=0 submitted=0 subscriptions=0 timed_out=0
}
