// Command 19_instrumentation measures a server through one sink: how long
// each method and component takes and how it ended, how long jobs wait
// for an executor slot, and how often the executor is full. The sink is
// given once to the Runtime and once to the supervisor; it never sees
// arguments, results or identities, and a panic in it cannot break a
// request. For OpenTelemetry, hand it instrumentation/otel's Sink instead
// (or both, through a sink that forwards to each).
//
//	go run ./examples/19_instrumentation                 # serves HTTP on 127.0.0.1:4019, prints stats every 10 s
//	go run ./examples/19_instrumentation -check          # loads it on an ephemeral port and checks the numbers
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func main() { excheck.MainHTTP("127.0.0.1:4019", run) }

// server is what run builds: the sink, the runtime and the tree.
type server struct {
	stats *Stats
	gate  chan struct{} // "slow" waits until it closes or its delay passes
	srv   *streamablehttp.Server
	sup   *supervisor.Supervisor
}

// start builds the server. slots bounds the executor (running and
// queued); slow calls take delay, or until the gate closes when delay is
// zero.
func start(logger *slog.Logger, addr string, slots int, delay time.Duration) (*server, error) {
	s := &server{stats: NewStats(), gate: make(chan struct{})}
	rt, err := dispatch.New(mcp.Implementation{Name: "measured", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithInstrumentation(s.stats), // dispatch events
		dispatch.WithTool(mcp.Tool{Name: "fast"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("fast"), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "slow"}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var timeout <-chan time.Time
			if delay > 0 {
				timeout = time.After(delay)
			}
			select {
			case <-s.gate:
			case <-timeout:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			// The caller's W3C trace context, from _meta.
			return mcp.TextResult("slow; trace " + req.Info.TraceContext().TraceParent), nil
		}),
		dispatch.WithTool(mcp.Tool{Name: "fails"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("upstream unavailable")
		}),
	)
	if err != nil {
		return nil, err
	}
	// Executor events: admissions, queue waits, rejections.
	s.sup, err = supervisor.New(rt, supervisor.WithLimits(supervisor.Limits{MaxConcurrency: slots, MaxQueue: slots}))
	if err != nil {
		return nil, err
	}
	if s.srv, err = streamablehttp.Listen(rt, streamablehttp.WithAddr(addr), streamablehttp.WithSupervisor(s.sup)); err != nil {
		_ = s.sup.Close(context.Background())
		return nil, err
	}
	return s, nil
}

func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(s.srv.Shutdown(ctx), s.sup.Close(ctx))
}

// run serves on addr, printing the measurements every 10 s, until ctx
// ends; with check it loads the server, checks the measurements and
// returns the first failure.
func run(ctx context.Context, logger *slog.Logger, addr string, check bool) error {
	slots, delay := 32, 50*time.Millisecond
	if check {
		// One running, one queued: the third concurrent call overflows.
		// Slow calls wait for the check to release them.
		slots, delay = 1, 0
	}
	s, err := start(logger, addr, slots, delay)
	if err != nil {
		return err
	}
	fmt.Println(s.srv.URL())
	if check {
		err := checks(s)
		if cerr := s.close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if err == nil {
			s.stats.Print(os.Stdout)
		}
		return err
	}
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return s.close()
		case <-tick.C:
			s.stats.Print(os.Stdout)
		}
	}
}
