// This file defines the server: two tools that run as tasks, the task
// runner that holds them, the hub that carries their status changes to
// listen streams, and the supervisor the runner lives under.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/taskstore"
)

// server is a Runtime with the tasks extension, its supervisor and its
// task runner.
type server struct {
	rt     *dispatch.Runtime
	sup    *supervisor.Supervisor
	runner *tasks.Runner
}

// startServer builds the server on store and starts its task runner,
// which first settles what a previous process left in the store.
func startServer(ctx context.Context, store taskstore.Store) (*server, error) {
	runner, err := tasks.New(
		tasks.WithStore(store),
		tasks.WithTools(
			// render may answer at once or as a task; a client that
			// declares the extension always gets a task.
			tasks.Tool{Name: "render", Support: tasks.Optional},
			// publish runs only as a task.
			tasks.Tool{Name: "publish", Support: tasks.Required},
		),
		tasks.WithLimits(tasks.Limits{MaxRunning: 4, PollInterval: 20 * time.Millisecond}),
	)
	if err != nil {
		return nil, err
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "tasks-example", Version: "1.0.0"},
		runner.Option(),
		// With a hub, each status change of a task reaches the listen
		// streams that name it in taskIds (those of its own principal).
		dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTool(mcp.Tool{
			Name:        "render",
			Description: "Renders a scene; takes the given number of seconds.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"scene":{"type":"string"},"seconds":{"type":"number","minimum":0}},"required":["scene"]}`),
		}, render),
		dispatch.WithTool(mcp.Tool{
			Name:        "publish",
			Description: "Publishes a document once the user confirms.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"doc":{"type":"string"}},"required":["doc"]}`),
		}, publish),
	)
	if err != nil {
		return nil, err
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		return nil, err
	}
	if err := runner.Start(ctx, rt, sup); err != nil {
		return nil, errors.Join(err, sup.Close(ctx))
	}
	return &server{rt: rt, sup: sup, runner: runner}, nil
}

// close stops the task runner (unfinished tasks fail saying the server
// stopped), then the supervisor.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(s.runner.Close(ctx), s.sup.Close(ctx))
}

// render is the slow tool: it works for the requested time, or until its
// task is cancelled.
func render(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Scene   string  `json:"scene"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(args.Seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return mcp.TextResult("rendered " + args.Scene), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// publish asks the user to confirm in the middle of its task (the task
// waits in input_required until the client answers with tasks/update).
func publish(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Doc string `json:"doc"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	answer, ok := req.Input.Elicitation("confirm")
	if !ok {
		return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			"confirm": mcp.ElicitForm(fmt.Sprintf("Publish %s?", args.Doc),
				json.RawMessage(`{"type":"object","properties":{"publish":{"type":"boolean"}},"required":["publish"]}`)),
		}}
	}
	if yes, _ := answer.Content["publish"].(bool); answer.Action == "accept" && yes {
		return mcp.TextResult("published " + args.Doc), nil
	}
	return mcp.TextResult("kept " + args.Doc + " unpublished"), nil
}
