// This file is the main functions the examples share: flags, the -check
// mode, signals, and serving over standard input and output.

package excheck

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/stdio"
)

// Main is the main function of an example that serves one Runtime over
// standard input and output and has a -check mode:
//
//	go run ./examples/<name>          # serves on stdio until end of input or a signal
//	go run ./examples/<name> -check   # runs check in process, exits 1 on failure
//
// newRuntime builds the server; an invalid definition ends the program
// with status 1.
func Main(newRuntime func() (*dispatch.Runtime, error), check func(*dispatch.Runtime) error) {
	MainWith(newRuntime, check, func(ctx context.Context, rt *dispatch.Runtime) error {
		return stdio.Serve(ctx, rt)
	})
}

// MainWith is Main with run in place of serving over stdio: run gets a
// context that ends at SIGINT or SIGTERM.
func MainWith(newRuntime func() (*dispatch.Runtime, error), check func(*dispatch.Runtime) error,
	run func(context.Context, *dispatch.Runtime) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	status := mainStatus(ctx, os.Args[1:], os.Stdout, os.Stderr, newRuntime, check, run)
	stop()
	os.Exit(status)
}

// Check is what -check does, for the example's main_test.go: it builds
// the Runtime and runs check on it.
func Check(newRuntime func() (*dispatch.Runtime, error), check func(*dispatch.Runtime) error) error {
	rt, err := newRuntime()
	if err != nil {
		return fmt.Errorf("invalid server definition: %w", err)
	}
	return check(rt)
}

// mainStatus is MainWith without the process: it parses args, does what
// they ask and returns the exit status.
func mainStatus(ctx context.Context, args []string, stdout, stderr io.Writer,
	newRuntime func() (*dispatch.Runtime, error), check func(*dispatch.Runtime) error,
	run func(context.Context, *dispatch.Runtime) error) int {
	flags := flag.NewFlagSet("example", flag.ContinueOnError)
	flags.SetOutput(stderr)
	checkMode := flags.Bool("check", false, "exercise the server in process and exit non-zero on failure")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", flags.Args())
		return 2
	}
	if *checkMode {
		if err := Check(newRuntime, check); err != nil {
			fmt.Fprintln(stderr, "check failed:", err)
			return 1
		}
		fmt.Fprintln(stdout, "check passed")
		return 0
	}
	rt, err := newRuntime()
	if err != nil {
		fmt.Fprintln(stderr, "invalid server definition:", err)
		return 1
	}
	if err := run(ctx, rt); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// MainHTTP is the main function of an example that serves over HTTP:
//
//	go run ./examples/<name> [-addr host:port]   # serves until SIGINT or SIGTERM
//	go run ./examples/<name> -check              # an ephemeral 127.0.0.1 port, checked, exits 1 on failure
//
// run gets a context that ends at SIGINT or SIGTERM, a logger that writes
// warnings and errors to standard error, the address to listen on (addr
// unless -addr says otherwise; 127.0.0.1:0 with -check) and whether to
// check. It returns once it has checked (nil when every check passed) or
// when ctx ends. Flags the example declares with package flag before
// calling MainHTTP are parsed with -addr and -check.
func MainHTTP(addr string, run func(ctx context.Context, logger *slog.Logger, addr string, check bool) error) {
	listen := flag.String("addr", addr, "address to listen on")
	check := flag.Bool("check", false, "start on an ephemeral 127.0.0.1 port, exercise the server over HTTP, and exit non-zero on failure")
	flag.Parse()
	if *check {
		*listen = "127.0.0.1:0"
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, logger, *listen, *check)
	stop()
	switch {
	case err != nil && *check:
		fmt.Fprintln(os.Stderr, "check failed:", err)
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case *check:
		fmt.Println("check passed")
	}
}
