package executor

import (
	"context"
	"log/slog"
	"testing"
)

// BenchmarkExecutorRoundTrip is one job through the executor: admission,
// a worker goroutine, delivery.
func BenchmarkExecutorRoundTrip(b *testing.B) {
	e := New(Config{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	sc := e.NewScope(ctx)
	done := make(chan struct{}, 1)
	job := Job{Run: func(context.Context) any { return nil }, Done: func(Result) { done <- struct{}{} }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sc.Submit(nil, job); err != nil {
			b.Fatal(err)
		}
		<-done
	}
	b.StopTimer()
	cancel()
	if err := e.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}
