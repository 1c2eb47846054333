package backplane_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// Two instances define the same tool; one makes it present, and the
// other serves it once it has applied that version.
func ExampleCatalog() {
	dir, _ := os.MkdirTemp("", "catalog")
	defer func() { _ = os.RemoveAll(dir) }()
	ns, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	ns.ReadyForConnections(10 * time.Second)
	ctx := context.Background()

	// What every instance runs: the same definitions.
	instance := func() (*backplane.Catalog, *dispatch.Runtime, func()) {
		nc, _ := nats.Connect(ns.ClientURL())
		var defs backplane.Definitions
		defs.DefineTool(mcp.Tool{Name: "echo", InputSchema: emptyObject},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("echo"), nil
			})
		cat, err := backplane.NewCatalog(ctx, nc, hub.New(hub.Options{}), &defs)
		if err != nil {
			panic(err)
		}
		rt, _ := dispatch.New(mcp.Implementation{Name: "example", Version: "1"}, dispatch.WithCatalog(cat.Registry()))
		return cat, rt, func() { _ = cat.Close(); nc.Close() }
	}
	a, _, closeA := instance()
	defer closeA()
	b, rtB, closeB := instance()
	defer closeB()

	v, err := a.Add(ctx, backplane.Tool("echo"))
	if err != nil {
		panic(err)
	}
	_ = b.Wait(ctx, v)
	c, _ := client.New(ctx, inprocess.New(rtB))
	defer func() { _ = c.Close() }()
	tools, _ := c.ListTools(ctx)
	fmt.Println(len(tools), tools[0].Name, b.Version() == v)
	// Output: 1 echo true
}
