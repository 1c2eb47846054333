// This file is the -check mode: the Go client drives the server in
// process, then the server restarts on the same durable store.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
	"github.com/snodo-go/snodo/transports/inprocess"
)

func checks(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "tasks-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tasks.db")

	// The first server, on a bbolt file.
	store, err := boltstore.Open(path, taskstore.Options{})
	if err != nil {
		return err
	}
	srv, err := startServer(ctx, store)
	if err != nil {
		return errors.Join(err, store.Close())
	}
	rendered, err := firstRun(ctx, srv)
	err = errors.Join(err, srv.close(), store.Close())
	if err != nil {
		return err
	}

	// The same server restarted on the same file: the finished task's
	// result is still there.
	if store, err = boltstore.Open(path, taskstore.Options{}); err != nil {
		return err
	}
	if srv, err = startServer(ctx, store); err != nil {
		return errors.Join(err, store.Close())
	}
	err = afterRestart(ctx, srv, rendered)
	if err = errors.Join(err, srv.close(), store.Close()); err != nil {
		return err
	}
	fmt.Println("a slow task followed to its result, input mid-task, a cancel heard on a listen stream, and the result read again after a restart: ok")
	return nil
}

// connect starts a 2026-07-28 client of srv in process; confirm answers
// publish's question.
func connect(ctx context.Context, srv *server, confirm bool) (*client.Client, error) {
	return client.New(ctx, inprocess.New(srv.rt), client.WithElicitation(
		func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"publish": confirm}}, nil
		}))
}

// firstRun drives the first server and returns the id of a task that
// completed.
func firstRun(ctx context.Context, srv *server) (string, error) {
	c, err := connect(ctx, srv, true)
	if err != nil {
		return "", err
	}
	defer c.Close()

	// A slow render: the call answers with a task at once; AwaitTask
	// follows it to its result (on a listen stream, which this server
	// offers; by polling tasks/get on a server without one).
	task, _, err := c.StartTool(ctx, "render", map[string]any{"scene": "harbour", "seconds": 0.2})
	if err != nil {
		return "", err
	}
	if task == nil || task.Status != mcp.TaskWorking {
		return "", fmt.Errorf("render: want a working task, got %+v", task)
	}
	res, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil {
		return "", err
	}
	if got := mcp.TextOf(res.Content); got != "rendered harbour" {
		return "", fmt.Errorf("render: %q", got)
	}

	// Input in the middle of a task: the client's elicitation handler
	// answers it through tasks/update.
	pub, _, err := c.StartTool(ctx, "publish", map[string]any{"doc": "minutes.md"})
	if err != nil {
		return "", err
	}
	if res, err = c.AwaitTask(ctx, pub.TaskID); err != nil {
		return "", err
	}
	if got := mcp.TextOf(res.Content); got != "published minutes.md" {
		return "", fmt.Errorf("publish: %q", got)
	}

	// A render that would take a minute, followed on a listen stream and
	// cancelled: the stream carries its new status.
	long, _, err := c.StartTool(ctx, "render", map[string]any{"scene": "city", "seconds": 60})
	if err != nil {
		return "", err
	}
	sub, err := c.ListenTasks(ctx, long.TaskID)
	if err != nil {
		return "", err
	}
	defer sub.Close()
	if ids := sub.Acknowledged().Keys[mcp.FilterTaskIDs]; len(ids) != 1 || ids[0] != long.TaskID {
		return "", fmt.Errorf("listen: the server follows %v, want the render", ids)
	}
	if err := c.CancelTask(ctx, long.TaskID); err != nil {
		return "", err
	}
	ev, err := sub.Next(ctx)
	if err != nil {
		return "", err
	}
	if ev.Task == nil || ev.Task.TaskID != long.TaskID || ev.Task.Status != mcp.TaskCancelled {
		return "", fmt.Errorf("listen: want the render's cancellation, got %+v", ev)
	}
	if _, err := c.AwaitTask(ctx, long.TaskID); !errors.Is(err, client.ErrTaskCancelled) {
		return "", fmt.Errorf("cancelled render: want ErrTaskCancelled, got %v", err)
	}
	if final, err := c.WaitTask(ctx, long.TaskID); err != nil || final.Status != mcp.TaskCancelled {
		return "", fmt.Errorf("cancelled render: WaitTask gave %+v, %v", final, err)
	}

	// Without the extension (CallTool), render answers synchronously;
	// publish, which runs only as a task, is refused with -32021.
	if res, err = c.CallTool(ctx, "render", map[string]any{"scene": "field"}); err != nil || mcp.TextOf(res.Content) != "rendered field" {
		return "", fmt.Errorf("render without tasks: %v %v", res, err)
	}
	if _, err = c.CallTool(ctx, "publish", map[string]any{"doc": "x"}); !isCode(err, mcp.CodeMissingRequiredClientCapability) {
		return "", fmt.Errorf("publish without tasks: want -32021, got %v", err)
	}
	return task.TaskID, nil
}

// afterRestart reads, from the restarted server, the task that completed
// before the restart.
func afterRestart(ctx context.Context, srv *server, id string) error {
	c, err := connect(ctx, srv, false)
	if err != nil {
		return err
	}
	defer c.Close()
	task, err := c.GetTask(ctx, id)
	if err != nil {
		return err
	}
	if task.Status != mcp.TaskCompleted {
		return fmt.Errorf("after the restart: task %s is %s", id, task.Status)
	}
	res, err := c.AwaitTask(ctx, id)
	if err != nil {
		return err
	}
	if got := mcp.TextOf(res.Content); got != "rendered harbour" {
		return fmt.Errorf("after the restart: %q", got)
	}
	return nil
}

// isCode reports whether err is a JSON-RPC error with code.
func isCode(err error, code int64) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == code
}
