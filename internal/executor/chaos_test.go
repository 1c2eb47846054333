package executor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// A scope that closes with work queued drops that work: none of it runs,
// even when Close cancels a running job whose slot frees while Close is
// still dropping the queue (a worker used to start the next queued job of
// the closing scope in that window; found by the stdio chaos test).
func TestChaosClosingScopeStartsNoQueuedJob(t *testing.T) {
	var ran atomic.Int64
	for range 100 {
		e := quietExecutor(Config{MaxConcurrency: 2, MaxQueue: 1000})
		s := e.NewScope(context.Background())
		started := make(chan struct{}, 2)
		for i := range 2 {
			if _, err := s.Submit(fmt.Sprintf("run%d", i), Job{Run: func(ctx context.Context) any {
				started <- struct{}{}
				<-ctx.Done()
				return nil
			}}); err != nil {
				t.Fatal(err)
			}
		}
		<-started
		<-started
		for i := range 50 {
			if _, err := s.Submit(fmt.Sprintf("queued%d", i), Job{Run: func(context.Context) any {
				ran.Add(1)
				return nil
			}, Done: func(Result) { t.Error("a job of a closed scope was delivered") }}); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		// Close waits for every worker, so each job that was going to
		// run has run.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := e.Close(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if st := e.Stats(); st.Running != 0 || st.Queued != 0 {
			t.Fatalf("executor not idle after Close: %+v", st)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("%d queued jobs of closed scopes ran", n)
	}
}
