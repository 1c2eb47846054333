package backplane_test

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/supervisor"
)

// Two instances answer each other with their trees; each would pass its
// supervisor's Tree.
func ExampleClusterView() {
	ns, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	ns.ReadyForConnections(10 * time.Second)
	ctx := context.Background()

	view := func(name string) (*backplane.ClusterView, func()) {
		nc, _ := nats.Connect(ns.ClientURL())
		v, err := backplane.NewClusterView(ctx, nc, name, func() *supervisor.Node {
			return &supervisor.Node{Kind: "supervisor", ID: "snodo"}
		})
		if err != nil {
			panic(err)
		}
		return v, func() { _ = v.Close(); nc.Close() }
	}
	a, closeA := view("a")
	defer closeA()
	_, closeB := view("b")
	defer closeB()

	// b announced itself when it started; once a has heard it, a waits
	// for b's answer (each request within DefaultTreesTimeout).
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		trees, _ := a.Trees(ctx)
		if len(trees.Trees) == 2 {
			fmt.Println(trees.Trees[0].Instance, trees.Trees[1].Instance, trees.Missing)
			break
		}
	}
	// Output: a b []
}
