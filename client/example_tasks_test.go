package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// A tool that runs as a task until it is cancelled, followed on a listen
// stream: the server tells the client of each status change, and
// WaitTask returns the final state (polling tasks/get instead on a server
// without listen streams).
func ExampleClient_ListenTasks() {
	ctx := context.Background()
	runner, err := tasks.New(tasks.WithTools(tasks.Tool{Name: "watch", Support: tasks.Optional}))
	if err != nil {
		log.Fatal(err)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "watcher", Version: "1.0.0"},
		runner.Option(),
		dispatch.WithSubscriptions(hub.New(hub.Options{})), // status changes go to listen streams
		dispatch.WithTool(mcp.Tool{Name: "watch", Description: "Watches until cancelled."},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}))
	if err != nil {
		log.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		log.Fatal(err)
	}
	defer sup.Close(ctx)
	if err := runner.Start(ctx, rt, sup); err != nil {
		log.Fatal(err)
	}
	defer runner.Close(ctx)

	c, err := client.New(ctx, inprocess.New(rt))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	task, _, err := c.StartTool(ctx, "watch", nil)
	if err != nil {
		log.Fatal(err)
	}
	sub, err := c.ListenTasks(ctx, task.TaskID)
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Close()
	fmt.Println("following", len(sub.Acknowledged().Keys[mcp.FilterTaskIDs]), "task")
	if err := c.CancelTask(ctx, task.TaskID); err != nil {
		log.Fatal(err)
	}
	ev, err := sub.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ev.Method, ev.Task.Status)
	final, err := c.WaitTask(ctx, task.TaskID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("final:", final.Status)
	// Output:
	// following 1 task
	// notifications/tasks cancelled
	// final: cancelled
}
