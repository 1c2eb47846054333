package backplane_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/taskstore"
)

// Two instances open the same task store: one holds its runner's lease,
// which the other sees alive until it is given up, and the other watches
// the records the first writes.
func ExampleWithLease() {
	dir, _ := os.MkdirTemp("", "tasks")
	defer func() { _ = os.RemoveAll(dir) }()
	ns, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	ns.ReadyForConnections(10 * time.Second)
	ctx := context.Background()
	var conns []*nats.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	open := func() *backplane.TaskStore {
		nc, _ := nats.Connect(ns.ClientURL())
		conns = append(conns, nc)
		s, err := backplane.NewTaskStore(ctx, nc, taskstore.Options{}, backplane.WithLease(5*time.Second))
		if err != nil {
			panic(err)
		}
		return s
	}
	a, b := open(), open()

	release, _ := a.HoldLease(ctx, "runner-a")
	alive, _ := b.LeaseAlive(ctx, "runner-a")
	fmt.Println("runner-a alive:", alive)

	seen := make(chan taskstore.Record, 1)
	stop, _ := b.Watch(ctx, func(r taskstore.Record) { seen <- r })
	rec, _, _ := a.Create(ctx, taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Name: "report",
		Params: []byte(`{}`), Status: taskstore.StatusWorking, Owner: "runner-a"})
	r := <-seen
	stop()
	fmt.Println("b saw the task:", r.ID == rec.ID, r.Status, r.Owner)

	release()
	alive, _ = b.LeaseAlive(ctx, "runner-a")
	fmt.Println("runner-a alive:", alive)
	// Output:
	// runner-a alive: true
	// b saw the task: true working runner-a
	// runner-a alive: false
}
