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
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

// runVariant serves variant in this process under a supervisor (its
// actor started only when start is true) and runs a tiny stdio load on it.
func runVariant(t *testing.T, variant string, start bool) (load.Result, *dispatch.Runtime) {
	t.Helper()
	ctx := context.Background()
	rt, closeVariant, err := snodoserver.NewVariantRuntime(ctx, slog.New(slog.DiscardHandler), variant)
	if err != nil {
		t.Fatal(err)
	}
	defer closeVariant()
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := sup.Close(ctx); err != nil {
			t.Errorf("supervisor Close: %v", err)
		}
	}()
	if start {
		if err := snodoserver.StartVariant(sup, variant); err != nil {
			t.Fatal(err)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(ctx, rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		served <- err
	}()
	target := &load.Target{Stdin: inW, Stdout: outR, Stats: func(context.Context, bool) (benchtool.Stats, error) {
		return benchtool.ReadStats(false), nil
	}}
	r, err := load.RunStdio(ctx, target, load.StdioLoad{Concurrency: 4, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinRequests: 20, Drain: 5 * time.Second})
	inW.Close()
	if serr := <-served; serr != nil {
		t.Errorf("Serve: %v", serr)
	}
	_, _ = io.Copy(io.Discard, outR)
	if err != nil {
		t.Fatal(err)
	}
	return r, rt
}

// Every variant serves the echo load without an error, in this process.
func TestSmokeVariants(t *testing.T) {
	for _, v := range snodoserver.Variants {
		t.Run(v, func(t *testing.T) {
			r, _ := runVariant(t, v, true)
			if r.Requests < 20 || r.Errors != 0 || r.P99us < r.P50us {
				t.Fatalf("implausible result: %+v", r)
			}
		})
	}
}

// The actor variant's calls are the actor's: without it every call fails.
func TestActorVariantIsServedByTheActor(t *testing.T) {
	if r, _ := runVariant(t, snodoserver.VariantActor, false); r.Errors == 0 {
		t.Fatalf("echo answered without its actor: %+v", r)
	}
}

// The limited variant's echo runs under both limits, and the load
// reaches neither: every call admitted, none waited or refused.
func TestLimitedVariantBoundsAreNotHit(t *testing.T) {
	r, rt := runVariant(t, snodoserver.VariantLimited, true)
	var echo *dispatch.PolicyUse
	for _, u := range rt.Policies() {
		if u.Name == benchtool.EchoTool {
			echo = &u
		}
	}
	if echo == nil || echo.MaxConcurrent == 0 || echo.Rate == 0 {
		t.Fatalf("echo has no concurrency and rate limit: %+v", rt.Policies())
	}
	if echo.Admitted < r.Requests || echo.Waited != 0 || echo.Refused != 0 {
		t.Fatalf("limits reached: %+v for %d requests", *echo, r.Requests)
	}
}

// An unknown variant is refused, not served as the plain call.
func TestUnknownVariant(t *testing.T) {
	if _, _, err := snodoserver.NewVariantRuntime(context.Background(), slog.New(slog.DiscardHandler), "nope"); err == nil {
		t.Fatal("unknown variant accepted")
	}
}
