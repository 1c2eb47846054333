package supervisor_test

import (
	"context"
	"os"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
)

// Render writes a snapshot of the live tree; with transports running,
// their connections, writers and in-flight requests appear under the
// root beside the executor.
func ExampleSupervisor_Render() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		panic(err)
	}
	defer sup.Close(context.Background())
	if err := sup.Render(os.Stdout, supervisor.FormatText); err != nil {
		panic(err)
	}
	// Output:
	// supervisor snodo
	// └── executor snodo/executor cancelled=0 max_concurrency=32 max_queue=256 queued=0 rejected=0 running=0 submitted=0 subscriptions=0 timed_out=0 waiting=0
}
