package snodoserver

// The task variant of the benchmark server: echo declared as a tool that
// may run as a task, on a chosen task store, so the harness can measure a
// task created and completed against the plain call.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
)

// The task stores NewTaskRuntime knows.
const (
	// StoreMemory keeps tasks in memory (taskstore.NewMemory).
	StoreMemory = "memory"
	// StoreBolt keeps tasks in one bbolt file (taskstore/boltstore) in a
	// temporary directory removed when the server ends.
	StoreBolt = "bolt"
)

// TaskStores lists the stores in report order.
var TaskStores = []string{StoreMemory, StoreBolt}

// TaskServer is the Runtime of the task variant with its Runner; Start it
// under the server's supervisor, Close it when the server ends.
type TaskServer struct {
	// Runtime serves echo (as a task when the request declares the tasks
	// extension) and sleep.
	Runtime *dispatch.Runtime
	runner  *tasks.Runner
	store   taskstore.Store
	dir     string
}

// NewTaskRuntime returns the plain Runtime with a tasks Runner on store
// (StoreMemory or StoreBolt) in which echo is tasks.Optional: a call that
// declares the extension creates a task, any other answers at once.
func NewTaskRuntime(logger *slog.Logger, store string) (*TaskServer, error) {
	ts := &TaskServer{}
	switch store {
	case StoreMemory:
		ts.store = taskstore.NewMemory(taskstore.Options{})
	case StoreBolt:
		dir, err := os.MkdirTemp("", "bench-tasks-")
		if err != nil {
			return nil, err
		}
		ts.dir = dir
		if ts.store, err = boltstore.Open(filepath.Join(dir, "tasks.db"), taskstore.Options{}); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	default:
		return nil, fmt.Errorf("snodoserver: unknown task store %q", store)
	}
	r, err := tasks.New(tasks.WithStore(ts.store), tasks.WithTools(tasks.Tool{Name: benchtool.EchoTool, Support: tasks.Optional}))
	if err != nil {
		ts.closeStore()
		return nil, err
	}
	ts.runner = r
	if ts.Runtime, err = newRuntime(logger, json.RawMessage(benchtool.EchoSchema), json.RawMessage(benchtool.SleepSchema), r.Option()); err != nil {
		ts.closeStore()
		return nil, err
	}
	return ts, nil
}

// Start starts the Runner under sup.
func (ts *TaskServer) Start(ctx context.Context, sup *supervisor.Supervisor) error {
	return ts.runner.Start(ctx, ts.Runtime, sup)
}

// Close stops the Runner, closes the store and removes its directory.
func (ts *TaskServer) Close(ctx context.Context) error {
	err := ts.runner.Close(ctx)
	ts.closeStore()
	return err
}

func (ts *TaskServer) closeStore() {
	_ = ts.store.Close()
	if ts.dir != "" {
		_ = os.RemoveAll(ts.dir)
	}
}
