// Command server-snodo is the snodo-go benchmark server: echo, sleep, over
// stdio (default) or Streamable HTTP (-http); -variant and -tasks serve
// echo another way (by an actor, under policies, through a proxy, or as a
// task on a task store).
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/bench/internal/snodoserver"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

func main() {
	maxConc := flag.Int("max-concurrency", 0, "executor MaxConcurrency (0: the library default)")
	maxQueue := flag.Int("max-queue", 0, "executor MaxQueue (0: the library default)")
	maxSubs := flag.Int("max-subscriptions", 20000, "open subscriptions/listen streams allowed (the listen scenario opens 10,000)")
	noSchema := flag.Bool("no-schema", false, "declare input schemas that admit any object, so arguments are not validated (to isolate validation's cost)")
	taskStore := flag.String("tasks", "", "declare echo as a tool that may run as a task, on this task store: memory or bolt (a bbolt file in a temporary directory)")
	maxConns := flag.Int("max-connections", 0, "HTTP listener MaxConnections (0: the library default, 1,024)")
	variant := flag.String("variant", "", "serve echo another way: actor (an actor's handler), limited (under policies whose bounds are not hit) or proxy (through package proxy, the remote in process)")
	f := benchtool.ParseFlags()
	closeVariant := func() {} // ends the variant's runtime (its proxy connection)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	newRuntime := snodoserver.NewRuntime
	if *noSchema {
		newRuntime = snodoserver.NewRuntimeWithoutSchemas
	}
	if *variant != "" {
		newRuntime = func(l *slog.Logger) (*dispatch.Runtime, error) {
			rt, c, err := snodoserver.NewVariantRuntime(context.Background(), l, *variant)
			if err == nil {
				closeVariant = c
			}
			return rt, err
		}
	}
	var taskServer *snodoserver.TaskServer
	if *taskStore != "" {
		newRuntime = func(l *slog.Logger) (*dispatch.Runtime, error) {
			ts, err := snodoserver.NewTaskRuntime(l, *taskStore)
			if err != nil {
				return nil, err
			}
			taskServer = ts
			return ts.Runtime, nil
		}
	}
	defer func() { closeVariant() }()
	rt, err := newRuntime(logger)
	if err != nil {
		benchtool.Fatal(err)
	}
	if err := benchtool.ServeStats(); err != nil {
		benchtool.Fatal(err)
	}
	defer benchtool.StartProfile()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sup, err := supervisor.New(rt, supervisor.WithLimits(supervisor.Limits{MaxConcurrency: *maxConc, MaxQueue: *maxQueue, MaxSubscriptions: *maxSubs}))
	if err != nil {
		benchtool.Fatal(err)
	}
	if err := snodoserver.StartVariant(sup, *variant); err != nil {
		benchtool.Fatal(err)
	}
	if taskServer != nil {
		if err := taskServer.Start(ctx, sup); err != nil {
			benchtool.Fatal(err)
		}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if taskServer != nil {
			_ = taskServer.Close(cctx)
		}
		_ = sup.Close(cctx)
	}()
	if f.HTTP != "" {
		err = serveHTTP(ctx, rt, sup, f.HTTP, *maxConns)
	} else {
		err = stdio.Serve(ctx, rt, stdio.WithSupervisor(sup), stdio.WithLimits(stdio.Limits{MaxSubscriptions: *maxSubs}))
	}
	if err != nil {
		benchtool.Fatal(err)
	}
}
