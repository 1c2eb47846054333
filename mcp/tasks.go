// The vocabulary of the tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663): a tools/call may answer with a task handle instead of its
// result, and the client follows the task with tasks/get, answers its
// input requests with tasks/update and may cancel it with tasks/cancel.

package mcp

import (
	"encoding/json"

	"github.com/snodo-go/snodo/jsonrpc"
)

// ExtensionTasks identifies the tasks extension in
// capabilities.extensions, on both sides.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// The methods and the notification of the tasks extension. The tasks/
// prefix is reserved for it; tasks/list and tasks/result, which the
// 2025-11-25 experimental tasks had, do not exist in it.
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksUpdate = "tasks/update"
	MethodTasksCancel = "tasks/cancel"
	// NotificationTasks carries a task's state on a subscriptions/listen
	// stream whose filter names the task in taskIds.
	NotificationTasks = "notifications/tasks"
	// FilterTaskIDs is the member of a subscriptions/listen filter
	// (SubscriptionFilter.Keys) that names the tasks whose
	// notifications/tasks the stream carries.
	FilterTaskIDs = "taskIds"
)

// ResultTypeTask is the resultType of a result that is a task handle
// (CreateTaskResult) instead of the request's own result.
const ResultTypeTask = "task"

// TaskStatus is a task's status.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is final: completed, failed or cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is a task's state on the wire: the flat body of a CreateTaskResult
// (with ResultType "task"), of a tasks/get result (ResultType "complete",
// the DetailedTask variants), and of a notifications/tasks.
type Task struct {
	// ResultType is "task" in a CreateTaskResult and "complete" in a
	// tasks/get result; empty in a notification.
	ResultType string `json:"resultType,omitempty"`
	// TaskID identifies the task in tasks/get, tasks/update and
	// tasks/cancel (and in the Mcp-Name header of those requests).
	TaskID string `json:"taskId"`
	// Status is the task's status.
	Status TaskStatus `json:"status"`
	// StatusMessage optionally describes the status.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt is when the task was created, an ISO 8601 timestamp.
	CreatedAt string `json:"createdAt"`
	// LastUpdatedAt is when the task last changed, an ISO 8601 timestamp.
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is how long the task is kept after its creation, in
	// milliseconds; nil (null on the wire) for no limit.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs is the suggested polling interval in milliseconds
	// (zero: none suggested).
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// Result is the request's result object, once the task completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the request failed with, once the task
	// failed.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// InputRequests are the outstanding input requests, keyed by the
	// server's keys, while the task waits for input: each an object with
	// method and params, as in an input_required result.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// Meta is the result's _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// TaskParams are the params of tasks/get and tasks/cancel.
type TaskParams struct {
	// TaskID names the task.
	TaskID string `json:"taskId"`
}

// UpdateTaskParams are the params of tasks/update.
type UpdateTaskParams struct {
	// TaskID names the task.
	TaskID string `json:"taskId"`
	// InputResponses answer outstanding input requests, keyed as the
	// task's inputRequests are.
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}
