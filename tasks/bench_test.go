package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
	"github.com/snodo-go/snodo/testkit"
)

// BenchmarkToolCallAsTask compares a plain tools/call of a tool that
// answers at once with the same call run as a task and followed to its
// end as a client does: the tools/call that creates it, then tasks/get
// until it is completed (gets/op counts them), on the memory store and on
// the bolt store. Each case runs through Runtime.Dispatch, without a
// transport.
func BenchmarkToolCallAsTask(b *testing.B) {
	dispatchFrame := func(b *testing.B, rt *dispatch.Runtime, frame []byte) []byte {
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		return rt.Dispatch(context.Background(), &dispatch.Request{Message: msg, Transport: dispatch.TransportStdio}).Frame
	}
	b.Run("plain", func(b *testing.B) {
		rt, _ := server(b)
		frame := testkit.Request(1, "tools/call", map[string]any{"name": "render"})
		b.ReportAllocs()
		for b.Loop() {
			if out := dispatchFrame(b, rt, frame); !bytes.Contains(out, []byte("rendered")) {
				b.Fatalf("tools/call: %s", out)
			}
		}
	})
	for _, st := range []struct {
		name string
		open func(b *testing.B) taskstore.Store
	}{
		{"task/memory", func(*testing.B) taskstore.Store { return taskstore.NewMemory(taskstore.Options{}) }},
		{"task/bolt", func(b *testing.B) taskstore.Store {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "tasks.db"), taskstore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s
		}},
	} {
		b.Run(st.name, func(b *testing.B) {
			rt, _ := server(b, tasks.WithStore(st.open(b)))
			create := testkit.Request(1, "tools/call", map[string]any{"name": "render", "_meta": declared})
			gets := 0
			b.ReportAllocs()
			for b.Loop() {
				out := dispatchFrame(b, rt, create)
				var f struct {
					Result struct {
						TaskID string `json:"taskId"`
					} `json:"result"`
				}
				if json.Unmarshal(out, &f) != nil || f.Result.TaskID == "" {
					b.Fatalf("tools/call: %s", out)
				}
				get := testkit.Request(2, "tasks/get", map[string]any{"taskId": f.Result.TaskID, "_meta": declared})
				for {
					gets++
					out := dispatchFrame(b, rt, get)
					if bytes.Contains(out, []byte(`"status":"completed"`)) {
						break
					}
					if !bytes.Contains(out, []byte(`"status":"working"`)) {
						b.Fatalf("tasks/get: %s", out)
					}
					runtime.Gosched()
				}
			}
			b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
		})
	}
}
