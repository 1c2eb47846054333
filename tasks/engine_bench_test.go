package tasks

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
)

// BenchmarkEngineCreateComplete creates a task and waits for its work to
// complete, on each store: what a task costs the engine beyond the work.
func BenchmarkEngineCreateComplete(b *testing.B) {
	for _, st := range []struct {
		name string
		open func(b *testing.B) taskstore.Store
	}{
		{"memory", func(*testing.B) taskstore.Store { return taskstore.NewMemory(taskstore.Options{}) }},
		{"bolt", func(b *testing.B) taskstore.Store {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "tasks.db"), taskstore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
	} {
		b.Run(st.name, func(b *testing.B) {
			h := newHarness(b, st.open(b), nil)
			run := func(context.Context, *Input) Outcome { return result("ok") }
			b.ReportAllocs()
			for b.Loop() {
				rec, err := h.e.create(bg, call{principal: "alice", method: "tools/call", name: "quick", run: run})
				if err != nil {
					b.Fatal(err)
				}
				<-h.ev.ch(rec.ID)
			}
		})
	}
}
