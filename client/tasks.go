// This file is the client side of the tasks extension
// (io.modelcontextprotocol/tasks, 2026-07-28): a tools/call that may
// answer with a task, and tasks/get, tasks/update and tasks/cancel.

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// ErrTaskCancelled is returned by AwaitTask for a task that ended
// cancelled.
var ErrTaskCancelled = errors.New("client: the task was cancelled")

// StartTool calls a tool declaring the tasks extension, so that the
// server may run the call as a task. Exactly one of the returned task and
// result is non-nil: the task handle (follow it with AwaitTask, GetTask,
// UpdateTask, CancelTask) when the server created a task, the tool's
// result when it answered at once, as it does for tools that never run as
// tasks and on initialize-era connections, which have no tasks. Input the
// server asks for before it creates the task is answered through the
// registered handlers, as for CallTool.
func (c *Client) StartTool(ctx context.Context, name string, arguments any, opts ...CallOption) (*mcp.Task, *mcp.CallToolResult, error) {
	raw, err := c.callTool(ctx, name, arguments, true, opts)
	if err != nil {
		return nil, nil, err
	}
	if resultType(raw) == mcp.ResultTypeTask {
		var t mcp.Task
		if err := decodeResult("tools/call", raw, &t); err != nil {
			return nil, nil, err
		}
		if t.TaskID == "" {
			return nil, nil, fmt.Errorf("%w: tools/call returned a task without a taskId", ErrUnexpectedResult)
		}
		return &t, nil, nil
	}
	var res mcp.CallToolResult
	if err := decodeResult("tools/call", raw, &res); err != nil {
		return nil, nil, err
	}
	return nil, &res, nil
}

// taskRequest builds a tasks/* request: the extension declared, Mcp-Name
// mirroring the task id.
func taskRequest(method, id string, params map[string]any) *request {
	params["taskId"] = id
	r := newRequest(method, params, nil)
	r.name, r.task = id, true
	return r
}

// GetTask returns the task's current state (tasks/get): its status and,
// once it ended, its result or error; while it waits for input, the input
// requests to answer with UpdateTask.
func (c *Client) GetTask(ctx context.Context, id string) (*mcp.Task, error) {
	raw, err := c.call(ctx, taskRequest(mcp.MethodTasksGet, id, map[string]any{}))
	if err != nil {
		return nil, err
	}
	var t mcp.Task
	if err := decodeResult(mcp.MethodTasksGet, raw, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateTask answers input requests of a task waiting for input
// (tasks/update), keyed as the task's InputRequests are; answering some
// keys leaves the task waiting for the others.
func (c *Client) UpdateTask(ctx context.Context, id string, responses map[string]any) error {
	if responses == nil {
		responses = map[string]any{}
	}
	_, err := c.call(ctx, taskRequest(mcp.MethodTasksUpdate, id, map[string]any{"inputResponses": responses}))
	return err
}

// CancelTask asks the server to cancel the task (tasks/cancel). The
// server acknowledges a task that had already ended the same way.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, taskRequest(mcp.MethodTasksCancel, id, map[string]any{}))
	return err
}

// defaultTaskPoll is AwaitTask's interval when the server suggests none.
const defaultTaskPoll = 500 * time.Millisecond

// AwaitTask follows a task until it ends, answering the input it asks
// for through the registered handlers with tasks/update, each request
// once, for up to the client's input round bound (WithMaxInputRounds). It
// follows the task as WaitTask does: on a listen stream when the server
// offers one for it, otherwise polling tasks/get at the interval the
// server suggests (pollIntervalMs; 500 ms when it suggests none). A
// completed task returns the tool's result; a failed one its
// *jsonrpc.Error; a cancelled one ErrTaskCancelled. When ctx ends first,
// AwaitTask returns its error and the task goes on: cancel it with
// CancelTask.
func (c *Client) AwaitTask(ctx context.Context, id string) (*mcp.CallToolResult, error) {
	w := c.watchTask(ctx, id)
	defer w.close()
	answered := map[string]bool{}
	rounds := 0
	t, err := c.GetTask(ctx, id)
	for {
		if err != nil {
			return nil, err
		}
		switch t.Status {
		case mcp.TaskCompleted:
			var res mcp.CallToolResult
			if err := decodeResult(mcp.MethodTasksGet, t.Result, &res); err != nil {
				return nil, err
			}
			return &res, nil
		case mcp.TaskFailed:
			if t.Error == nil {
				return nil, fmt.Errorf("%w: task %s failed without an error", ErrUnexpectedResult, id)
			}
			return nil, t.Error
		case mcp.TaskCancelled:
			if t.StatusMessage != "" {
				return nil, fmt.Errorf("%w: %s", ErrTaskCancelled, t.StatusMessage)
			}
			return nil, ErrTaskCancelled
		case mcp.TaskInputRequired:
			requests := map[string]mcp.InputRequest{}
			for key, raw := range t.InputRequests {
				if answered[key] {
					continue
				}
				req, err := decodeTaskInput(raw)
				if err != nil {
					return nil, fmt.Errorf("%w: task %s: input %q: %v", ErrUnexpectedResult, id, key, err)
				}
				requests[key] = req
			}
			if len(requests) > 0 {
				if rounds++; rounds > c.cfg.maxInputRounds {
					return nil, fmt.Errorf("client: task %s: %w (%d)", id, ErrTooManyInputRounds, c.cfg.maxInputRounds)
				}
				responses, aerr := c.answerInputs(ctx, mcp.MethodTasksUpdate, requests, "")
				if aerr != nil {
					return nil, aerr
				}
				if err := c.UpdateTask(ctx, id, responses); err != nil {
					return nil, err
				}
				for key := range requests {
					answered[key] = true
				}
				t, err = c.GetTask(ctx, id)
				continue
			}
		}
		next, werr := w.wait(ctx, t)
		if werr != nil {
			return nil, werr
		}
		if next != nil {
			t = next
			continue
		}
		t, err = c.GetTask(ctx, id)
	}
}

// decodeTaskInput decodes one of a task's input requests ({method,
// params}).
func decodeTaskInput(raw json.RawMessage) (mcp.InputRequest, error) {
	var w struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := jsonwire.API.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	return mcp.DecodeInputRequest(w.Method, w.Params)
}
