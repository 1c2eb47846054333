package dispatch_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/mcp"
)

// 10,000 mixed calls run on a real executor (whose slots the concurrency
// limit gives back while calls wait): admitted, waiting, refused by the
// queue and by the rate limit, timed out, and cancelled in the queue or
// while waiting. Afterwards no executor slot, place or waiting place is
// left taken.
func TestNoSlotLeakAfterMixedCalls(t *testing.T) {
	const calls = 10000
	work := func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		for range 3 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			runtime.Gosched()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
	}
	// The limited tool's calls hold their places until every call has
	// been submitted, so its queue overflows whatever the machine's pace.
	gate := make(chan struct{})
	gated := func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return work(ctx, req)
	}
	stuck := func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	rt := mustNew(t, dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "limited"}, gated, dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 2, MaxWaiting: 3})),
		dispatch.WithTool(mcp.Tool{Name: "rated"}, work, dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Hour), Burst: 5})),
		dispatch.WithTool(mcp.Tool{Name: "timed"}, stuck, dispatch.WithCallTimeout(time.Microsecond),
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1, MaxWaiting: 2})),
		dispatch.WithTool(mcp.Tool{Name: "plain"}, work))
	e := executor.New(executor.Config{MaxConcurrency: 4, MaxQueue: calls, Timeout: -1, Logger: slog.New(slog.DiscardHandler)})
	scope := e.NewScope(context.Background())
	names := []string{"limited", "rated", "timed", "plain"}
	rng := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int64]int{}
	for i := range calls {
		call, out := rt.Admit(toolRequest(t, i, names[i%len(names)], nil))
		if call == nil {
			t.Fatalf("call %d not admitted: %s", i, out.Frame)
		}
		wg.Add(1)
		var once sync.Once
		done := func() { once.Do(wg.Done) }
		ticket, err := scope.Submit(i, executor.Job{
			Run: func(ctx context.Context) any { return rt.Execute(ctx, call) },
			Done: func(r executor.Result) {
				if o, ok := r.Value.(dispatch.Outcome); ok {
					if fe := frameError(t, o); fe != nil {
						mu.Lock()
						codes[fe.Code]++
						mu.Unlock()
					}
				}
				done()
			},
		})
		if err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
		if rng.IntN(10) == 0 { // cancel one in ten, wherever it is
			go func() {
				runtime.Gosched()
				if ticket.Cancel() {
					done()
				}
			}()
		}
	}
	close(gate)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatalf("calls still unfinished after 60 s: %+v", e.Stats())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	scope.Close()
	if err := e.Close(ctx); err != nil {
		t.Fatalf("executor close: %v (a slot or a suspended job leaked)", err)
	}
	if st := e.Stats(); st.Running != 0 || st.Waiting != 0 || st.Queued != 0 {
		t.Fatalf("executor after the calls: %+v", st)
	}
	for _, u := range rt.Policies() {
		if u.Running != 0 || u.Waiting != 0 {
			t.Fatalf("policy of %s after the calls: %+v", u.Name, u)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, code := range []int64{dispatch.CodeBusy, dispatch.CodeRateLimited, dispatch.CodeCallTimedOut} {
		if codes[code] == 0 {
			t.Errorf("no call was answered with %d: the mix did not reach that limit (%v)", code, codes)
		}
	}
}
