package supervisor_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestTreeShowsRootAndExecutor(t *testing.T) {
	sup, err := supervisor.New(supervisor.WithLogger(slog.New(slog.DiscardHandler)),
		supervisor.WithExecutorConfig(actors.ExecutorConfig{MaxConcurrency: 3, MaxQueue: 7}))
	if err != nil {
		t.Fatal(err)
	}
	tree := sup.Tree()
	if tree.Kind != supervisor.KindSupervisor || tree.ID != "snodo" {
		t.Fatalf("root: %+v", tree)
	}
	ex := testkit.Find(tree, supervisor.KindExecutor)
	if ex == nil || ex.Attrs["max_concurrency"] != "3" || ex.Attrs["max_queue"] != "7" || ex.Attrs["running"] != "0" {
		t.Fatalf("executor node: %+v", ex)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sup.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := sup.Executor().NewScope(ctx).Submit(nil, actors.Job{Run: func(context.Context) any { return nil }}); err == nil {
		t.Fatal("an owned executor accepts work after Close")
	}
}

func TestSharedExecutorIsNotClosed(t *testing.T) {
	shared := actors.NewExecutor(actors.ExecutorConfig{Logger: slog.New(slog.DiscardHandler)})
	a, err := supervisor.New(supervisor.WithExecutor(shared), supervisor.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Executor() != shared {
		t.Fatal("WithExecutor ignored")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan any, 1)
	if _, err := shared.NewScope(ctx).Submit(nil, actors.Job{Run: func(context.Context) any { return "ran" }, Done: func(r actors.Result) { done <- r.Value }}); err != nil {
		t.Fatalf("shared executor closed by a supervisor that did not own it: %v", err)
	}
	if v := <-done; v != "ran" {
		t.Fatalf("job result %v", v)
	}
	if err := shared.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func newSupervisor(t *testing.T) *supervisor.Supervisor {
	t.Helper()
	sup, err := supervisor.New(supervisor.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return sup
}
