// This file is the wire side of the Runner: tasks/get, tasks/update and
// tasks/cancel from their params to their results or JSON-RPC errors, and
// the CreateTaskResult a task-augmented tools/call answers with.

package tasks

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/taskstore"
)

// timeFormat is how the wire carries a task's times: ISO 8601 in UTC,
// to the millisecond.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// view returns a record as the wire shows it, with resultType set to
// resultType ("" for a notification).
func view(rec *taskstore.Record, resultType string) *mcp.Task {
	t := &mcp.Task{
		ResultType:    resultType,
		TaskID:        rec.ID,
		Status:        rec.Status,
		StatusMessage: rec.StatusMessage,
		CreatedAt:     rec.CreatedAt.UTC().Format(timeFormat),
		LastUpdatedAt: rec.UpdatedAt.UTC().Format(timeFormat),
	}
	if rec.TTL > 0 {
		ms := rec.TTL.Milliseconds()
		t.TTLMs = &ms
	}
	if rec.PollInterval > 0 {
		t.PollIntervalMs = max(rec.PollInterval.Milliseconds(), 1)
	}
	switch rec.Status {
	case taskstore.StatusCompleted:
		t.Result = rec.Result
	case taskstore.StatusFailed:
		var e jsonrpc.Error
		if json.Unmarshal(rec.Error, &e) != nil || e.Message == "" {
			e = jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
		}
		t.Error = &e
	case taskstore.StatusInputRequired:
		_ = json.Unmarshal(rec.InputRequests, &t.InputRequests)
	}
	return t
}

// createResult is the CreateTaskResult a task-augmented tools/call
// answers with: the task, and an empty content array. The extension's
// CreateTaskResult admits members beyond the task's, and a client reads
// resultType "task" before anything else; the empty content lets the
// answer also satisfy the core schema's CallToolResult (which requires
// content), against which a validator that knows only the core schema
// checks every tools/call result.
type createResult struct {
	*mcp.Task
	// Content is always empty.
	Content []json.RawMessage `json:"content"`
}

// ack is the empty acknowledgement of tasks/update and tasks/cancel.
type ack struct {
	ResultType string `json:"resultType"`
}

var completeAck = &ack{ResultType: "complete"}

// taskParams reads params holding a taskId (and, for tasks/update,
// inputResponses).
type taskParams struct {
	TaskID         *string         `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + msg}
}

func readTaskID(params json.RawMessage) (string, taskParams, *jsonrpc.Error) {
	var p taskParams
	if len(params) == 0 {
		return "", p, invalidParams("taskId is required")
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return "", p, invalidParams("taskId must be a string")
	}
	if p.TaskID == nil {
		return "", p, invalidParams("taskId is required")
	}
	if !taskstore.ValidID(*p.TaskID) {
		return "", p, invalidParams("taskId is not a task id this server issued")
	}
	return *p.TaskID, p, nil
}

// engineError maps the engine's errors to the extension's JSON-RPC errors.
func engineError(err error) *jsonrpc.Error {
	switch {
	case errors.Is(err, errNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
	case errors.Is(err, errExpired):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task has expired"}
	case errors.Is(err, errNotWaiting):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
	case errors.Is(err, errFull):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Task capacity exhausted: " + err.Error()}
	case errors.Is(err, errClosed), errors.Is(err, ErrNotStarted):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Task runner unavailable: " + err.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: " + err.Error()}
}

// get serves tasks/get.
func (r *Runner) get(ctx context.Context, principal string, params json.RawMessage) (any, *jsonrpc.Error) {
	id, _, jerr := readTaskID(params)
	if jerr != nil {
		return nil, jerr
	}
	eng, err := r.engine()
	if err != nil {
		return nil, engineError(err)
	}
	rec, err := eng.get(ctx, principal, id)
	if err != nil {
		return nil, engineError(err)
	}
	return view(&rec, "complete"), nil
}

// update serves tasks/update.
func (r *Runner) update(ctx context.Context, principal string, params json.RawMessage) (any, *jsonrpc.Error) {
	id, p, jerr := readTaskID(params)
	if jerr != nil {
		return nil, jerr
	}
	var responses map[string]json.RawMessage
	if len(p.InputResponses) == 0 || p.InputResponses[0] != '{' || json.Unmarshal(p.InputResponses, &responses) != nil {
		return nil, invalidParams("inputResponses must be an object")
	}
	eng, err := r.engine()
	if err != nil {
		return nil, engineError(err)
	}
	if err := eng.update(ctx, principal, id, responses); err != nil {
		return nil, engineError(err)
	}
	return completeAck, nil
}

// cancel serves tasks/cancel: the same acknowledgement whether the task
// was still running or had already finished.
func (r *Runner) cancel(ctx context.Context, principal string, params json.RawMessage) (any, *jsonrpc.Error) {
	id, _, jerr := readTaskID(params)
	if jerr != nil {
		return nil, jerr
	}
	eng, err := r.engine()
	if err != nil {
		return nil, engineError(err)
	}
	if err := eng.cancel(ctx, principal, id); err != nil {
		return nil, engineError(err)
	}
	return completeAck, nil
}

// begin creates a task for a tools/call and returns its CreateTaskResult,
// once the task is in the store.
func (r *Runner) begin(ctx context.Context, c call) (*mcp.Task, *jsonrpc.Error) {
	eng, err := r.engine()
	if err != nil {
		return nil, engineError(err)
	}
	rec, err := eng.create(ctx, c)
	if err != nil {
		return nil, engineError(err)
	}
	return view(&rec, mcp.ResultTypeTask), nil
}
