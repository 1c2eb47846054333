// Command 30_cluster runs three instances of one MCP server that share
// their state over NATS (the backplane module), behind a round-robin
// proxy with no affinity, all on 127.0.0.1 with an embedded NATS server:
//
//   - backplane.Catalog: a tool added on one instance is listed and
//     callable on every instance, and every listen stream hears the
//     change once;
//   - backplane.Events: listen streams hear changes made on any instance;
//   - backplane.TaskStore: a task started through one instance is read
//     and awaited through the others;
//   - backplane.ClusterView: any instance returns every live instance's
//     supervision tree.
//
// The client talks to the proxy only. With -check it lists and calls
// tools, opens a listen stream while a tool is added on another instance,
// runs a task across instances, stops one instance and carries on, and
// exits non-zero if any step does not hold.
//
//	go run . -addr 127.0.0.1:8030   # serves; the proxy's URL is printed
//	go run . -check                 # the client's steps, checked
//
// It is a module of its own, since the backplane's module is.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8030", "address the proxy listens on")
	check := flag.Bool("check", false, "run the client's steps on ephemeral ports and exit non-zero on failure")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *check {
		*addr = "127.0.0.1:0"
	}
	if err := run(ctx, *addr, *check); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		stop()
		os.Exit(1)
	}
	if *check {
		fmt.Println("check passed")
	}
}

// run starts the cluster and, with check, runs the client's steps;
// without, serves until ctx ends.
func run(ctx context.Context, addr string, check bool) (err error) {
	cl, err := startCluster(ctx, addr, 3)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := cl.close(); err == nil {
			err = cerr
		}
	}()
	if check {
		return checks(ctx, cl)
	}
	fmt.Printf("proxy: %s (instances %s)\n", cl.url(), cl.names())
	fmt.Printf("cluster view: %s\n", cl.viewURL())
	<-ctx.Done()
	return nil
}
