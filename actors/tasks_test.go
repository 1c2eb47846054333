package actors

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/tree"
)

func TestTaskRunnerShowsItsTasks(t *testing.T) {
	sys, err := newSystem(tree.SystemConfig{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var halted atomic.Int32
	r, err := sys.StartTaskRunner(tree.TaskRunnerConfig{
		Attrs: func(m map[string]string) { m["capacity"] = "8" },
		Halt:  func() { halted.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Started("A", tree.TaskInfo{Tool: "slow_compute", Status: "working", Created: time.Now(), Deadline: deadline})
	r.Started("B", tree.TaskInfo{Tool: "confirm_delete", Status: "working", Created: time.Now()})
	r.Changed("B", "input_required")
	r.Changed("unknown", "completed") // a task the runner does not hold: ignored

	snap := sys.Tree()
	var runner *tree.Node
	snap.Walk(func(n *tree.Node) {
		if n.Kind == tree.KindTaskRunner {
			runner = n
		}
	})
	if runner == nil || runner.Attrs["tasks"] != "2" || runner.Attrs["capacity"] != "8" || len(runner.Children) != 2 {
		t.Fatalf("runner node: %+v", runner)
	}
	status := map[string]string{}
	for _, c := range runner.Children {
		if c.Kind != tree.KindTask || c.Attrs["age"] == "" {
			t.Fatalf("task node: %+v", c)
		}
		status[c.Attrs["tool"]] = c.Attrs["status"]
		if c.Attrs["tool"] == "slow_compute" && c.Attrs["deadline"] != "2030-01-01T00:00:00Z" {
			t.Fatalf("deadline %q", c.Attrs["deadline"])
		}
	}
	if status["slow_compute"] != "working" || status["confirm_delete"] != "input_required" {
		t.Fatalf("statuses %v", status)
	}

	r.Ended("A")
	if n := sys.Tree().Count(tree.KindTask); n != 1 {
		t.Fatalf("%d task actors after one ended", n)
	}
	r.Finish()
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop")
	}
	if n := sys.Tree().Count(tree.KindTaskRunner); n != 0 {
		t.Fatalf("%d runners left", n)
	}
	r.Started("C", tree.TaskInfo{Tool: "late"}) // after the runner stopped: a dead letter, expected
	if err := sys.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if halted.Load() != 1 {
		t.Fatalf("Halt ran %d times", halted.Load())
	}
	if d := sys.UnexpectedDeadLetters(); d != 0 {
		t.Fatalf("%d unexpected dead letters", d)
	}
}

func TestTaskRunnerHaltsWhenTheTreeCloses(t *testing.T) {
	sys, err := newSystem(tree.SystemConfig{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	halted := make(chan struct{})
	r, err := sys.StartTaskRunner(tree.TaskRunnerConfig{Halt: func() { close(halted) }})
	if err != nil {
		t.Fatal(err)
	}
	r.Started("A", tree.TaskInfo{Tool: "t", Status: "working", Created: time.Now()})
	if err := sys.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-halted
	<-r.Done()
}
