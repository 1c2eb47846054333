package tree

// What the task engine gives and gets for its part of the tree: one
// runner node under the root and one task actor under it per task held.

import "time"

// TaskRunner is a task runner's node in the tree. It is not owned by any
// connection or request: a task outlives the exchange that created it,
// and ends only when its runner says so or the runner stops.
type TaskRunner interface {
	// Done is closed once the runner and its task actors have stopped.
	Done() <-chan struct{}
	// Started adds a task actor for task id. Calls for one id must be
	// made in order: Started, any Changed, then Ended.
	Started(id string, info TaskInfo)
	// Changed records a task's new status.
	Changed(id, status string)
	// Ended stops the task's actor.
	Ended(id string)
	// Finish asks the tree to stop the runner once its task actors have
	// stopped. It may be called more than once.
	Finish()
}

// TaskRunnerConfig describes a task runner.
type TaskRunnerConfig struct {
	// Attrs, when set, adds attributes to the runner's node. It runs on
	// the runner actor's goroutine and must only read goroutine-safe
	// state.
	Attrs func(map[string]string)
	// Halt, when set, is called once when the runner stops for any
	// reason (the tree closing included). It must not block.
	Halt func()
}

// TaskInfo describes a task for the tree.
type TaskInfo struct {
	// Tool is the tool the task runs.
	Tool string
	// Status is the task's status.
	Status string
	// Created is when the task was created.
	Created time.Time
	// Deadline is when its work must have finished (zero: none).
	Deadline time.Time
}
