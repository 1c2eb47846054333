package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

// transportName names the server's transport in its supervision tree, so
// the announce tool can find it with stdio.Lookup.
const transportName = "example"

// announcement is the one application notification the server may send.
const announcement = "notifications/example/announcement"

// server holds the state its tools share.
type server struct {
	release     chan struct{} // closed by the release tool
	releaseOnce sync.Once
	cancelled   atomic.Int64 // slow calls that saw their cancellation
	logger      *slog.Logger
	sup         *supervisor.Supervisor // set before the transport starts
}

func newServer(logger *slog.Logger) *server {
	return &server{release: make(chan struct{}), logger: logger}
}

// serve runs the stdio transport on standard input and output.
func (s *server) serve(ctx context.Context, opts ...stdio.Option) error {
	rt, err := s.runtime()
	if err != nil {
		return err
	}
	if s.sup, err = supervisor.New(rt); err != nil {
		return err
	}
	defer s.sup.Close(context.Background())
	opts = append([]stdio.Option{
		stdio.WithSupervisor(s.sup),
		stdio.WithName(transportName),
		stdio.WithNotificationMethods(announcement),
	}, opts...)
	return stdio.Serve(ctx, rt, opts...)
}

func (s *server) runtime() (*dispatch.Runtime, error) {
	text := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	return dispatch.New(
		mcp.Implementation{Name: "stdio-concurrency", Version: "0.1.0"},
		dispatch.WithLogger(s.logger),
		dispatch.WithTool(mcp.Tool{Name: "echo", Description: "Returns the text it is given.", InputSchema: text}, s.echo),
		dispatch.WithTool(mcp.Tool{Name: "slow", Description: "Waits until the release tool is called, or until cancelled."}, s.slow),
		dispatch.WithTool(mcp.Tool{Name: "release", Description: "Lets every slow call finish."}, s.releaseSlow),
		dispatch.WithTool(mcp.Tool{Name: "cancellations", Description: "Counts the slow calls that saw their cancellation."}, s.cancellations),
		dispatch.WithTool(mcp.Tool{
			Name:        "sleep",
			Description: "Waits for ms milliseconds, or until cancelled.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
		}, s.sleep),
		dispatch.WithTool(mcp.Tool{Name: "announce", Description: "Sends the text as an application notification, then answers.", InputSchema: text}, s.announce),
		dispatch.WithTool(mcp.Tool{Name: "crash", Description: "Panics: the call gets an error, the server keeps serving."}, s.crash),
	)
}

func textArg(req *dispatch.CallToolRequest) (string, error) {
	var args struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	return args.Text, nil
}

func (s *server) echo(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	t, err := textArg(req)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(t), nil
}

func (s *server) slow(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	s.logger.Debug("slow call waiting", "id", req.Info.ID.String())
	select {
	case <-s.release:
		return mcp.TextResult("released"), nil
	case <-ctx.Done():
		s.cancelled.Add(1)
		s.logger.Debug("slow call cancelled", "id", req.Info.ID.String())
		return nil, ctx.Err()
	}
}

func (s *server) releaseSlow(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	s.releaseOnce.Do(func() { close(s.release) })
	return mcp.TextResult("released"), nil
}

func (s *server) cancellations(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.TextResult(fmt.Sprint(s.cancelled.Load())), nil
}

func (s *server) sleep(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		MS int64 `json:"ms"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	t := time.NewTimer(time.Duration(args.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return mcp.TextResult(fmt.Sprintf("slept %d ms", args.MS)), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *server) announce(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	t, err := textArg(req)
	if err != nil {
		return nil, err
	}
	// Any code of the application holding the supervisor can find the
	// transport by its name.
	conn, ok := stdio.Lookup(s.sup, transportName)
	if !ok {
		return nil, fmt.Errorf("announcing: no transport named %q", transportName)
	}
	if err := conn.Notify(ctx, announcement, map[string]string{"text": t}); err != nil {
		return nil, fmt.Errorf("announcing: %w", err)
	}
	return mcp.TextResult("announced"), nil
}

func (s *server) crash(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	panic("the crash tool always panics")
}
