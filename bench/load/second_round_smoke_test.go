package load_test

// Smoke tests of the second round's scenarios in this process: the
// cancellation storm and the listen streams over Streamable HTTP, and a
// task per store.

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/bench/internal/snodoserver"
	"github.com/snodo-go/snodo/bench/load"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// startSnodoHTTP serves the benchmark Runtime on snodo-go's listener in
// this process; the returned stop shuts it down.
func startSnodoHTTP(t *testing.T) (*load.Target, func()) {
	t.Helper()
	rt, err := snodoserver.NewRuntime(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streamablehttp.Listen(rt)
	if err != nil {
		t.Fatal(err)
	}
	target := &load.Target{URL: srv.URL(), Stats: func(_ context.Context, gc bool) (benchtool.Stats, error) {
		return benchtool.ReadStats(gc), nil
	}}
	return target, func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}
}

// Every call of the HTTP storm runs, and every one stops once its
// connection is gone, with no response and no late start.
func TestSmokeHTTPStorm(t *testing.T) {
	target, stop := startSnodoHTTP(t)
	defer stop()
	r, err := load.RunHTTPStorm(context.Background(), target, load.StormConfig{Calls: 20, SleepMs: 60_000, Window: 5 * time.Second, Settle: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Started != 20 || r.Rejected != 0 || !r.Stopped || r.Late != 0 || r.StartedAfterCancel != 0 || r.Errors != 0 {
		t.Fatalf("HTTP storm: %+v", r)
	}
}

// Every HTTP listen stream is acknowledged and counted.
func TestSmokeHTTPListen(t *testing.T) {
	target, stop := startSnodoHTTP(t)
	defer stop()
	r, err := load.RunHTTPListen(context.Background(), target, load.ListenConfig{Streams: 60, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unsupported || r.Streams != 60 || r.Param != 60 || r.GoroutinesPerSt <= 0 {
		t.Fatalf("HTTP listen: %+v", r)
	}
}

// serveStdio serves rt under sup over in-memory pipes and runs measure on
// it; the server's input is closed and Serve awaited afterwards.
func serveStdio(t *testing.T, rt *dispatch.Runtime, sup *supervisor.Supervisor, measure func(*load.Target) (load.Result, error)) (load.Result, error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		served <- err
	}()
	r, err := measure(&load.Target{Stdin: inW, Stdout: outR, Stats: func(context.Context, bool) (benchtool.Stats, error) {
		return benchtool.ReadStats(false), nil
	}})
	inW.Close()
	if serr := <-served; serr != nil {
		t.Errorf("Serve: %v", serr)
	}
	_, _ = io.Copy(io.Discard, outR)
	return r, err
}

// A task on each store is created and followed to completion, with no
// error; the plain server answers the same call without a task, which
// the scenario reports as unsupported.
func TestSmokeTasks(t *testing.T) {
	ctx := context.Background()
	cfg := load.TaskLoad{Concurrency: 2, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinTasks: 5}
	for _, store := range snodoserver.TaskStores {
		t.Run(store, func(t *testing.T) {
			ts, err := snodoserver.NewTaskRuntime(slog.New(slog.DiscardHandler), store)
			if err != nil {
				t.Fatal(err)
			}
			sup, err := supervisor.New(ts.Runtime)
			if err != nil {
				t.Fatal(err)
			}
			if err := ts.Start(ctx, sup); err != nil {
				t.Fatal(err)
			}
			r, err := serveStdio(t, ts.Runtime, sup, func(tg *load.Target) (load.Result, error) { return load.RunTask(ctx, tg, cfg) })
			if cerr := ts.Close(ctx); cerr != nil {
				t.Errorf("Close: %v", cerr)
			}
			if cerr := sup.Close(ctx); cerr != nil {
				t.Errorf("supervisor Close: %v", cerr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests < 5 || r.Errors != 0 || r.GetsPerTask < 0 || r.P99us < r.P50us || r.P50us <= 0 {
				t.Fatalf("implausible result: %+v", r)
			}
		})
	}
	t.Run("plain", func(t *testing.T) {
		rt, err := snodoserver.NewRuntime(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		sup, err := supervisor.New(rt)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := sup.Close(ctx); err != nil {
				t.Errorf("supervisor Close: %v", err)
			}
		}()
		r, err := serveStdio(t, rt, sup, func(tg *load.Target) (load.Result, error) { return load.RunTask(ctx, tg, cfg) })
		if !load.IsUnsupported(err) || !r.Unsupported {
			t.Fatalf("a server without tasks: %+v, %v; want unsupported", r, err)
		}
	})
}

// An unknown task store is refused.
func TestUnknownTaskStore(t *testing.T) {
	if _, err := snodoserver.NewTaskRuntime(slog.New(slog.DiscardHandler), "nope"); err == nil {
		t.Fatal("unknown task store accepted")
	}
}
