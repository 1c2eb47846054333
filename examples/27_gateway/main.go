// Command 27_gateway is one MCP server built from three: a local Runtime
// mounted under "local", and two remote servers proxied under "notes"
// and "weather". The notes server is an initialize-era (2025-11-25)
// server this program starts as a child process and reaches over stdio;
// the weather server speaks 2026-07-28 over Streamable HTTP on an
// ephemeral 127.0.0.1 port. The gateway itself serves stdio, or with
// -check is reached by a 2026-07-28 client in process, which calls every
// part through it, and confirms the notes server's elicitation (a
// server-to-client request the gateway relays as an input_required
// result).
//
//	go run ./examples/27_gateway          # serve the gateway on stdio
//	go run ./examples/27_gateway -check   # exit 1 unless every part answers as expected
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// serveEnv makes the program serve the notes server on stdio: the
// gateway starts the program itself this way.
const serveEnv = "SNODO_EXAMPLE27_NOTES"

func main() {
	check := flag.Bool("check", false, "call every part through the gateway and exit with status 1 unless all answer as expected")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if os.Getenv(serveEnv) != "" {
		if err := serveNotes(logger); err != nil {
			logger.Error("serving", "error", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, logger, os.Stdout, *check); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// notesRuntime is the initialize-era server: notes kept in memory, a
// tool that adds one and a resource that lists them.
func notesRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	var mu sync.Mutex
	var notes []string
	return dispatch.New(mcp.Implementation{Name: "notes", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithProtocolVersions(mcp.Version20251125),
		dispatch.WithTool(mcp.Tool{Name: "add", Description: "Adds a note.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Text string }
				if err := json.Unmarshal(req.Arguments, &a); err != nil {
					return nil, err
				}
				mu.Lock()
				notes = append(notes, a.Text)
				n := len(notes)
				mu.Unlock()
				return mcp.TextResult(fmt.Sprintf("%d notes", n)), nil
			}),
		// clear asks its client to confirm (a server-to-client request on
		// 2025-11-25), which the gateway relays to its own client.
		dispatch.WithTool(mcp.Tool{Name: "clear", Description: "Clears the notes, once confirmed."},
			func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				ans, ok := req.Input.Elicitation("confirm")
				if !ok {
					return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"confirm": mcp.ElicitForm("Clear every note?",
						json.RawMessage(`{"type":"object","properties":{"sure":{"type":"boolean"}},"required":["sure"]}`))}}
				}
				if ans.Action != "accept" || ans.Content["sure"] != true {
					return mcp.TextResult("kept"), nil
				}
				mu.Lock()
				defer mu.Unlock()
				n := len(notes)
				notes = nil
				return mcp.TextResult(fmt.Sprintf("cleared %d notes", n)), nil
			}),
		dispatch.WithResource(mcp.Resource{URI: "notes://all", Name: "all", MIMEType: "text/plain"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				mu.Lock()
				defer mu.Unlock()
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
					mcp.TextContents(req.URI, "text/plain", strings.Join(notes, "\n")),
				}}, nil
			}),
	)
}

func serveNotes(logger *slog.Logger) error {
	rt, err := notesRuntime(logger)
	if err != nil {
		return err
	}
	return stdio.Serve(context.Background(), rt)
}

// weatherRuntime is the 2026-07-28 server: a forecast that reports
// progress, and a prompt.
func weatherRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "forecast", Description: "Forecasts a city's weather.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ City string }
				if err := json.Unmarshal(req.Arguments, &a); err != nil {
					return nil, err
				}
				for i := 1; i <= 2; i++ {
					if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2}); err != nil {
						return nil, err
					}
				}
				return mcp.TextResult("sunny in " + a.City), nil
			}),
		dispatch.WithPrompt(mcp.Prompt{Name: "packing", Arguments: []mcp.PromptArgument{{Name: "city", Required: true}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Text("What should I pack for " + req.Arguments["city"] + "?")},
				}}, nil
			}),
	)
}

// localRuntime is the part served in process.
func localRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "local", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithTool(mcp.Tool{Name: "greet", Description: "Greets."},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("hello from the gateway"), nil
			}))
}

// gateway starts the weather server, dials both backends and builds the
// gateway's Runtime. stop ends everything it started.
// eras maps each backend to the revision the gateway speaks with it.
func gateway(ctx context.Context, logger *slog.Logger) (rt *dispatch.Runtime, backends *proxy.Group, eras map[string]string, stop func() error, err error) {
	weather, err := weatherRuntime(logger)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	srv, err := streamablehttp.Listen(weather)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	backends = proxy.NewGroup(proxy.GroupLimits{})
	eras = map[string]string{}
	stop = func() error {
		berr := backends.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(berr, srv.Shutdown(sctx))
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, nil, errors.Join(err, stop())
	}
	notes := &client.CommandTransport{Path: exe}
	notes.Env = append(os.Environ(), serveEnv+"=1")
	notes.Stderr = os.Stderr
	for _, b := range []struct {
		prefix string
		tr     client.Transport
	}{{"notes", notes}, {"weather", &client.HTTPTransport{URL: srv.URL()}}} {
		backend, err := backends.Dial(ctx, b.prefix, b.tr, proxy.WithLogger(logger), proxy.WithReconnect(client.Reconnect{}))
		if err != nil {
			return nil, nil, nil, nil, errors.Join(fmt.Errorf("%s: %w", b.prefix, err), stop())
		}
		eras[b.prefix] = backend.Server().ProtocolVersion
	}
	local, err := localRuntime(logger)
	if err != nil {
		return nil, nil, nil, nil, errors.Join(err, stop())
	}
	opts := append([]dispatch.Option{dispatch.WithLogger(logger), dispatch.WithMount("local", local)}, backends.Mounts()...)
	if rt, err = dispatch.New(mcp.Implementation{Name: "gateway", Version: "1.0.0"}, opts...); err != nil {
		return nil, nil, nil, nil, errors.Join(err, stop())
	}
	return rt, backends, eras, stop, nil
}

// results are what the client saw through the gateway.
type results struct {
	Eras     map[string]string // backend: revision
	Shown    []string          // the backends the supervision tree shows
	Version  string
	Tools    []string
	Greet    string
	Added    string
	Notes    string
	Cleared  string // notes_clear, confirmed through the gateway
	Forecast string
	Progress []float64
	Prompt   string
}

// expected are the results -check requires.
var expected = results{
	Eras:     map[string]string{"notes": mcp.Version20251125, "weather": mcp.Version20260728},
	Shown:    []string{"notes 2025-11-25", "weather 2026-07-28"},
	Version:  mcp.Version20260728,
	Tools:    []string{"local_greet", "notes_add", "notes_clear", "weather_forecast"},
	Greet:    "hello from the gateway",
	Added:    "1 notes",
	Notes:    "buy milk",
	Cleared:  "cleared 1 notes",
	Forecast: "sunny in Lisbon",
	Progress: []float64{1, 2},
	Prompt:   "What should I pack for Lisbon?",
}

func collect(ctx context.Context, rt *dispatch.Runtime) (*results, error) {
	c, err := client.New(ctx, inprocess.New(rt), client.WithProtocolVersions(mcp.Version20260728),
		client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
		}))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r := &results{Version: c.Server().ProtocolVersion}
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
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return mcp.TextOf(res.Content), nil
	}
	if r.Greet, err = call("local_greet", nil); err != nil {
		return nil, err
	}
	if r.Added, err = call("notes_add", map[string]string{"text": "buy milk"}); err != nil {
		return nil, err
	}
	read, err := c.ReadResource(ctx, "notes+notes://all")
	if err != nil {
		return nil, err
	}
	r.Notes = read.Contents[0].Text
	if r.Cleared, err = call("notes_clear", nil); err != nil {
		return nil, err
	}
	if r.Forecast, err = call("weather_forecast", map[string]string{"city": "Lisbon"}, client.WithProgress(func(p mcp.Progress) {
		r.Progress = append(r.Progress, p.Progress)
	})); err != nil {
		return nil, err
	}
	p, err := c.GetPrompt(ctx, "weather_packing", map[string]string{"city": "Lisbon"})
	if err != nil {
		return nil, err
	}
	r.Prompt = mcp.TextOf([]mcp.Content{p.Messages[0].Content})
	return r, nil
}

func run(ctx context.Context, logger *slog.Logger, out io.Writer, check bool) (err error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	rt, backends, eras, stop, err := gateway(ctx, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stop()) }()
	// The backends' health shows in the gateway's supervision tree.
	sup, err := supervisor.New(rt)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = errors.Join(err, sup.Close(cctx))
	}()
	if err := backends.Show(sup); err != nil {
		return err
	}
	if !check {
		return stdio.Serve(ctx, rt, stdio.WithSupervisor(sup))
	}
	r, err := collect(ctx, rt)
	if err != nil {
		return fmt.Errorf("check failed: %w", err)
	}
	r.Eras = eras
	sup.Tree().Walk(func(n *supervisor.Node) {
		if b := n.Attrs["backend"]; b != "" {
			r.Shown = append(r.Shown, b+" "+n.Attrs["protocol"])
		}
	})
	slices.Sort(r.Shown)
	fmt.Fprintf(out, "backends %v (in the tree: %v); gateway %s, tools %v\n", r.Eras, r.Shown, r.Version, r.Tools)
	fmt.Fprintf(out, "local_greet %q; notes_add %q, then %s reads %q; notes_clear, confirmed by this client, %q\n",
		r.Greet, r.Added, "notes+notes://all", r.Notes, r.Cleared)
	fmt.Fprintf(out, "weather_forecast %q with progress %v; weather_packing %q\n", r.Forecast, r.Progress, r.Prompt)
	if !same(r, &expected) {
		return fmt.Errorf("check failed: the gateway's answers differ from the expected ones")
	}
	fmt.Fprintln(out, "check: local, notes (2025-11-25 over stdio) and weather (2026-07-28 over HTTP) answer through the gateway")
	return nil
}

func same(a, b *results) bool {
	return maps.Equal(a.Eras, b.Eras) && slices.Equal(a.Shown, b.Shown) && a.Version == b.Version && slices.Equal(a.Tools, b.Tools) && a.Greet == b.Greet && a.Added == b.Added &&
		a.Notes == b.Notes && a.Cleared == b.Cleared && a.Forecast == b.Forecast && slices.Equal(a.Progress, b.Progress) && a.Prompt == b.Prompt
}
