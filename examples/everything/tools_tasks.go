package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/tasks"
)

// Tools of the tasks extension (io.modelcontextprotocol/tasks): the names
// and behaviours the suite's tasks-* scenarios use. greet never runs as a
// task; failing_job and test_tool_with_task only do (a client without
// the extension gets -32021); the others do when the client declares the
// extension.

// taskTools declares how each tool runs, for the Runner.
var taskTools = []tasks.Tool{
	{Name: "slow_compute", Support: tasks.Optional},
	{Name: "failing_job", Support: tasks.Required},
	{Name: "protocol_error_job", Support: tasks.Optional},
	{Name: "confirm_delete", Support: tasks.Optional},
	{Name: "multi_input", Support: tasks.Optional},
	{Name: "test_tool_with_task", Support: tasks.Required},
}

// taskDecision makes every call of a task tool a task, except the first
// round of test_tool_with_task, which asks for the user's name before the
// task exists (multi round-trip, then a task on the final round).
func taskDecision(_ context.Context, c *tasks.Call) bool {
	return c.Tool != "test_tool_with_task" || c.HasInput
}

// newTaskRunner returns the fixture's Runner (tasks kept in memory).
func newTaskRunner() (*tasks.Runner, error) {
	return tasks.New(tasks.WithTools(taskTools...), tasks.WithDecision(taskDecision),
		tasks.WithLimits(tasks.Limits{PollInterval: 100 * time.Millisecond}))
}

var (
	greetSchema       = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	slowComputeSchema = json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`)
	filenameSchema    = json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}}}`)
	confirmSchema     = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	nameConfirmSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)
)

func taskToolOptions() []dispatch.Option {
	tool := func(name, description string, schema json.RawMessage, h dispatch.ToolHandler) dispatch.Option {
		return dispatch.WithTool(mcp.Tool{Name: name, Description: description, InputSchema: schema}, h)
	}
	return []dispatch.Option{
		tool("greet", "Greets a name at once (never a task).", greetSchema, greet),
		tool("slow_compute", "Works for the given seconds, then reports its label (a task for clients of the tasks extension).", slowComputeSchema, slowCompute),
		tool("failing_job", "Runs only as a task and ends, after about a second, with a tool error.", noArgs, failingJob),
		tool("protocol_error_job", "Runs as a task and ends with a JSON-RPC error (the task fails).", noArgs, protocolErrorJob),
		tool("confirm_delete", "Asks, from inside its task, to confirm deleting a file.", filenameSchema, confirmDelete),
		tool("multi_input", "Asks two questions at once from inside its task, then reports both answers.", noArgs, multiInput),
		tool("test_tool_with_task", "Asks for the user's name (user_name) first, then greets them from a task.", noArgs, toolWithTask),
	}
}

func greet(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ Name string }
	_ = json.Unmarshal(req.Arguments, &in)
	if in.Name == "" {
		in.Name = "World"
	}
	return mcp.TextResult("Hello, " + in.Name + "!"), nil
}

func slowCompute(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Seconds float64
		Label   string
	}
	_ = json.Unmarshal(req.Arguments, &in)
	t := time.NewTimer(time.Duration(in.Seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return mcp.TextResult(fmt.Sprintf("computed %q in %gs", in.Label, in.Seconds)), nil
}

func failingJob(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return mcp.ErrorResult("the job failed: nothing to process"), nil
}

func protocolErrorJob(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the job's backend refused the request"}
}

func confirmDelete(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ Filename string }
	_ = json.Unmarshal(req.Arguments, &in)
	if answer, ok := req.Input.Elicitation("confirm"); ok {
		if answer.Action == "accept" && answer.Content["confirm"] == true {
			return mcp.TextResult("Deleted " + in.Filename), nil
		}
		return mcp.TextResult("Kept " + in.Filename), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
		"confirm": mcp.ElicitForm("Delete "+in.Filename+"?", confirmSchema),
	}}
}

func multiInput(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	first, ok1 := req.Input.Elicitation("first")
	second, ok2 := req.Input.Elicitation("second")
	if ok1 && ok2 {
		return mcp.TextResult(fmt.Sprintf("first: %s %v; second: %s %v", first.Action, first.Content["name"], second.Action, second.Content["name"])), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
		"first":  mcp.ElicitForm("First question: your name?", nameConfirmSchema),
		"second": mcp.ElicitForm("Second question: a friend's name?", nameConfirmSchema),
	}}
}

func toolWithTask(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer, ok := req.Input.Elicitation("user_name"); ok && answer.Action == "accept" {
		if name, ok := answer.Content["name"].(string); ok {
			return mcp.TextResult("Hello, " + name + "! (from a task)"), nil
		}
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"user_name": askName("What is your name?")}}
}
