// Command 07_tasks runs long tool calls as tasks (the tasks extension of
// MCP 2026-07-28, io.modelcontextprotocol/tasks): a tools/call answers at
// once with a task handle, and the client follows the task with
// tasks/get, answers the input it asks for with tasks/update, and may
// stop it with tasks/cancel; a subscriptions/listen stream naming the
// task in taskIds hears each status change without polling. Tasks belong to the server's task runner,
// not to the request or the connection that created them; on the durable
// store (-store FILE, a bbolt file) a finished task's result is still
// readable after the server restarts.
//
//	go run ./examples/07_tasks                      # serves over stdio, tasks in memory
//	go run ./examples/07_tasks -store tasks.db      # the same, tasks kept in tasks.db
//	go run ./examples/07_tasks -check               # plays the Go client in process
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
	"github.com/snodo-go/snodo/transports/stdio"
)

func main() {
	check := flag.Bool("check", false, "exercise the server with the Go client in process and exit non-zero on failure")
	storePath := flag.String("store", "", "bbolt file that keeps the tasks across restarts (default: in memory)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, *check, *storePath)
	stop()
	switch {
	case err != nil && *check:
		fmt.Fprintln(os.Stderr, "check failed:", err)
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case *check:
		fmt.Println("check passed")
	}
}

func run(ctx context.Context, check bool, storePath string) error {
	if check {
		return checks(ctx)
	}
	store := taskstore.Store(taskstore.NewMemory(taskstore.Options{}))
	if storePath != "" {
		s, err := boltstore.Open(storePath, taskstore.Options{})
		if err != nil {
			return err
		}
		defer s.Close()
		store = s
	}
	srv, err := startServer(ctx, store)
	if err != nil {
		return err
	}
	serveErr := stdio.Serve(ctx, srv.rt, stdio.WithSupervisor(srv.sup))
	return errors.Join(serveErr, srv.close())
}
