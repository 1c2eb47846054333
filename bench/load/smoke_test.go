package load_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/bench/internal/snodoserver"
	"github.com/snodo-go/snodo/bench/load"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// startSnodo serves the benchmark Runtime over in-memory pipes in this
// process. The returned stop ends its input and waits for Serve.
func startSnodo(t *testing.T) (*load.Target, func()) {
	t.Helper()
	rt, err := snodoserver.NewRuntime(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		served <- err
	}()
	target := &load.Target{
		Stdin:  inW,
		Stdout: outR,
		Stats: func(context.Context, bool) (benchtool.Stats, error) {
			return benchtool.ReadStats(false), nil
		},
	}
	return target, func() {
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		// Drain anything a scenario left unread so no reader is stuck.
		_, _ = io.Copy(io.Discard, outR)
	}
}

// TestSmoke runs a tiny load of every scenario against the snodo server
// in this process, with the leak check (TestSmokeEveryServer runs every
// server as a process).
func TestSmoke(t *testing.T) {
	ctx := context.Background()
	t.Run("stdio", func(t *testing.T) {
		target, stop := startSnodo(t)
		defer stop()
		r, err := load.RunStdio(ctx, target, load.StdioLoad{Concurrency: 4, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinRequests: 50})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d requests in %.2f s", r.Requests, r.Seconds)
		if r.Requests < 50 || r.Errors != 0 || r.P50us <= 0 || r.P99us < r.P50us {
			t.Fatalf("implausible result: %+v", r)
		}
	})
	t.Run("storm", func(t *testing.T) {
		target, stop := startSnodo(t)
		defer stop()
		r, err := load.RunStorm(ctx, target, load.StormConfig{Calls: 20, SleepMs: 60_000, Window: 5 * time.Second, Settle: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if r.Started != 20 || !r.Stopped || r.Late != 0 || r.StartedAfterCancel != 0 {
			t.Fatalf("storm: %+v", r)
		}
	})
	t.Run("http", func(t *testing.T) {
		rt, err := snodoserver.NewRuntime(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		srv, err := streamablehttp.Listen(rt)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := srv.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		}()
		r, err := load.RunHTTP(ctx, &load.Target{URL: srv.URL()}, load.HTTPLoad{Clients: 2, Warmup: 20 * time.Millisecond, Duration: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.Requests == 0 || r.Errors != 0 || r.P99us < r.P50us {
			t.Fatalf("implausible result: %+v", r)
		}
	})
	t.Run("listen", func(t *testing.T) {
		target, stop := startSnodo(t)
		defer stop()
		// snodo-go serves subscriptions/listen: every stream must be
		// acknowledged and measured.
		r, err := load.RunListen(ctx, target, load.ListenConfig{Streams: 10, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.Unsupported || r.Streams != 10 || r.Errors != 0 {
			t.Fatalf("listen: %+v", r)
		}
	})
}
