// Command 24_client_transports makes the same calls with the snodo client
// over each transport to the same server, and prints what each returned:
// in process (transports/inprocess), over stdio (the program starts itself as a
// server process) and over Streamable HTTP (the native listener on an
// ephemeral 127.0.0.1 port).
//
//	go run ./examples/24_client_transports          # print the results
//	go run ./examples/24_client_transports -check   # exit 1 unless all agree
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// serveEnv makes the program serve stdio instead of running the client:
// the stdio transport starts the program itself this way.
const serveEnv = "SNODO_EXAMPLE24_SERVE"

func main() {
	check := flag.Bool("check", false, "exit with status 1 unless every transport gave the expected results")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if os.Getenv(serveEnv) != "" {
		if err := serve(logger); err != nil {
			logger.Error("serving", "error", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, *check); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// newRuntime is the server: a few tools, one of which reports progress.
func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	text := func(f func(string) string) dispatch.ToolHandler {
		return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(f(a.Text)), nil
		}
	}
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	return dispatch.New(
		mcp.Implementation{Name: "example-24", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("echo, upper and count."),
		dispatch.WithTool(mcp.Tool{Name: "echo", Description: "Returns its text.", InputSchema: schema}, text(func(s string) string { return s })),
		dispatch.WithTool(mcp.Tool{Name: "upper", Description: "Upper-cases its text.", InputSchema: schema}, text(strings.ToUpper)),
		dispatch.WithTool(mcp.Tool{
			Name:        "count",
			Description: "Counts to n, reporting progress at each step.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100}},"required":["n"]}`),
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ N int }
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			for i := 1; i <= a.N; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(a.N)}); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult(fmt.Sprintf("counted to %d", a.N)), nil
		}),
	)
}

func serve(logger *slog.Logger) error {
	rt, err := newRuntime(logger)
	if err != nil {
		return err
	}
	return stdio.Serve(context.Background(), rt)
}

// transports are the ways to reach the server, by name. stop ends the
// HTTP listener.
func transports(rt *dispatch.Runtime) (names []string, trs map[string]client.Transport, stop func() error, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := &client.CommandTransport{Path: exe}
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stderr = os.Stderr
	srv, err := streamablehttp.Listen(rt)
	if err != nil {
		return nil, nil, nil, err
	}
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return srv.Shutdown(ctx)
	}
	return []string{"direct", "stdio", "http"}, map[string]client.Transport{
		"direct": inprocess.New(rt),
		"stdio":  cmd,
		"http":   &client.HTTPTransport{URL: srv.URL()},
	}, stop, nil
}

// results are what one transport returned, in a form that compares.
type results struct {
	Version  string
	Server   string
	Tools    []string
	Echo     string
	Upper    string
	Count    string
	Progress []float64
	Unknown  string
}

func collect(ctx context.Context, tr client.Transport) (*results, error) {
	c, err := client.New(ctx, tr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r := &results{Version: c.Server().ProtocolVersion}
	s := c.Server()
	r.Server = s.Implementation.Name + " " + s.Implementation.Version
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		r.Tools = append(r.Tools, t.Name)
	}
	call := func(name string, args any, opts ...client.CallOption) (string, error) {
		res, err := c.CallTool(ctx, name, args, opts...)
		if err != nil {
			return "", err
		}
		if len(res.Content) != 1 {
			return "", fmt.Errorf("%s returned %d content blocks", name, len(res.Content))
		}
		return mcp.TextOf(res.Content), nil
	}
	if r.Echo, err = call("echo", map[string]string{"text": "Grüße, 世界"}); err != nil {
		return nil, err
	}
	if r.Upper, err = call("upper", map[string]string{"text": "Grüße"}); err != nil {
		return nil, err
	}
	if r.Count, err = call("count", map[string]int{"n": 3}, client.WithProgress(func(p mcp.Progress) {
		r.Progress = append(r.Progress, p.Progress)
	})); err != nil {
		return nil, err
	}
	// A protocol error is the same everywhere too.
	_, err = c.CallTool(ctx, "missing", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return nil, fmt.Errorf("calling a missing tool: want a protocol error, got %v", err)
	}
	r.Unknown = err.Error()
	return r, nil
}

// expected are the results every transport must give.
var expected = results{
	Version:  mcp.Version20260728,
	Server:   "example-24 1.0.0",
	Tools:    []string{"count", "echo", "upper"},
	Echo:     "Grüße, 世界",
	Upper:    "GRÜßE", // Go upper-cases ß as itself
	Count:    "counted to 3",
	Progress: []float64{1, 2, 3},
	Unknown:  "jsonrpc error -32602: Unknown tool: missing",
}

func run(ctx context.Context, out io.Writer, check bool) (err error) {
	rt, err := newRuntime(slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	names, trs, stop, err := transports(rt)
	if err != nil {
		return err
	}
	defer func() {
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	var failed []string
	for _, name := range names {
		r, err := collect(ctx, trs[name])
		if err != nil {
			fmt.Fprintf(out, "%-7s error: %v\n", name, err)
			failed = append(failed, name)
			continue
		}
		fmt.Fprintf(out, "%-7s %s, %s, tools %v\n", name, r.Version, r.Server, r.Tools)
		fmt.Fprintf(out, "        echo %q, upper %q, count %q with progress %v\n", r.Echo, r.Upper, r.Count, r.Progress)
		fmt.Fprintf(out, "        missing tool: %s\n", r.Unknown)
		if !same(r, &expected) {
			failed = append(failed, name)
		}
	}
	if check && len(failed) > 0 {
		return fmt.Errorf("check failed: %s gave unexpected results", strings.Join(failed, ", "))
	}
	if check {
		fmt.Fprintf(out, "check: %s agree\n", strings.Join(names, ", "))
	}
	return nil
}

func same(a, b *results) bool {
	return a.Version == b.Version && a.Server == b.Server && slices.Equal(a.Tools, b.Tools) &&
		a.Echo == b.Echo && a.Upper == b.Upper && a.Count == b.Count &&
		slices.Equal(a.Progress, b.Progress) && a.Unknown == b.Unknown
}
