package taskstore_test

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/taskstore"
)

// A runner starting on a store its predecessor left a working task in:
// RecoverEach fails the task, saying the process stopped, and reports the
// write so that the runner can tell the task's listeners.
func ExampleRecoverEach() {
	ctx := context.Background()
	s := taskstore.NewMemory(taskstore.Options{})
	_, _, _ = s.Create(ctx, taskstore.Record{
		ID: taskstore.NewID(), Method: "tools/call", Name: "report", Params: []byte(`{}`),
		Status: taskstore.StatusWorking, Owner: "runner-before",
	})
	resumed, err := taskstore.RecoverEach(ctx, s, "runner-now", nil, func(rec taskstore.Record, from taskstore.Status) {
		fmt.Println(from, "->", rec.Status+":", rec.StatusMessage)
	})
	fmt.Println(len(resumed), err)
	// Output:
	// working -> failed: the server process stopped while the task was running, and the task could not be resumed
	// 0 <nil>
}
